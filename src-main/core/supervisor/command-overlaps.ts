/** A tracked command of an agent (a `bash` command, an MCP call): the tool call it is. */
export type CommandRef = {
  agent_id: string
  call_id: string
}

type Window = CommandRef & {
  start: number
  end?: number
}

/**
 * Which agents' commands ran at the same time in one folder. A `bash` command's changes are found
 * by comparing the folder before and after it (agent/changes), so whatever another agent's
 * command wrote there meanwhile looks like this command's: its changes are marked with the
 * commands they overlapped (`concurrent_with`), and revert will not guess. An agent process says
 * when each tracked command's window opens (before its first listing) and closes (after its
 * changes are sent); the order is the order the supervisor received them in.
 *
 * Folders are keyed by their path, so two jobs on one project see each other's commands too.
 */
export class CommandOverlaps {
  private tick = 0
  private readonly folders = new Map<string, Window[]>()

  started(folder: string, command: CommandRef): void {
    const windows = this.folders.get(folder) ?? []
    windows.push({ ...command, start: ++this.tick })
    this.folders.set(folder, windows)
  }

  ended(folder: string, command: CommandRef): void {
    const windows = this.folders.get(folder)
    const window = windows?.find((each) => each.end === undefined && same(each, command))
    if (!windows || !window) return
    window.end = ++this.tick
    this.prune(folder, windows)
  }

  /** An agent that ended (or whose process died) has no command running any more. */
  agentEnded(agentId: string): void {
    for (const [folder, windows] of this.folders) {
      for (const window of windows) if (window.agent_id === agentId && window.end === undefined) window.end = ++this.tick
      this.prune(folder, windows)
    }
  }

  /** Other agents' commands in `folder` that overlapped `command` so far: running now, or ended after it started. */
  overlapping(folder: string, command: CommandRef): CommandRef[] {
    const windows = this.folders.get(folder) ?? []
    const own = windows.find((each) => each.end === undefined && same(each, command))
    if (!own) return []
    return windows
      .filter((each) => each.agent_id !== command.agent_id && (each.end === undefined || each.end > own.start))
      .map(({ agent_id, call_id }) => ({ agent_id, call_id }))
  }

  /** Ended windows matter only to a running one that started before they ended. */
  private prune(folder: string, windows: Window[]): void {
    const running = windows.filter((each) => each.end === undefined)
    if (running.length === 0) return void this.folders.delete(folder)
    const oldest = Math.min(...running.map((each) => each.start))
    this.folders.set(
      folder,
      windows.filter((each) => each.end === undefined || each.end > oldest),
    )
  }
}

const same = (a: CommandRef, b: CommandRef): boolean => a.agent_id === b.agent_id && a.call_id === b.call_id
