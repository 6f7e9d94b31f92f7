import { createHash } from 'node:crypto'
import type { EventData } from '../trace/events'
import { fileContentCapBytes } from '../trace/file-changes'
import { projectDirOf, worktreeBranchOf } from './agent-worktrees'
import { CommandOverlaps } from './command-overlaps'
import type { AgentRuntime, JobRuntime } from './runtime'
import type { TraceEmitter } from './trace-emitter'

/**
 * The supervisor's intake of the `file.change` events agent processes send. What the process
 * cannot know, or must not say, is the supervisor's: the folder (`branch`, the worktree the agent
 * works in) and the other agents' commands that ran at the same time in it (`concurrent_with`,
 * from the processes' `command` windows); a process's own values of either are dropped. The
 * contents are admitted against their hashes, and a `bash` change that is another agent's write
 * seen again is dropped (JobFileChanges).
 */
export class FileChangeIntake {
  private readonly jobs = new WeakMap<JobRuntime, JobFileChanges>()
  private readonly commands = new CommandOverlaps()

  constructor(private readonly trace: TraceEmitter) {}

  /** The agent's `command` message: a tracked command's window opened or closed. */
  command(agent: AgentRuntime, callId: string, running: boolean): void {
    const command = { agent_id: agent.id, call_id: callId }
    if (running) this.commands.started(projectDirOf(agent), command)
    else this.commands.ended(projectDirOf(agent), command)
  }

  /** The agent ended: a window it left open is closed. */
  agentEnded(agent: AgentRuntime): void {
    this.commands.agentEnded(agent.id)
  }

  change(agent: AgentRuntime, data: EventData<'file.change'>, ts: string, contents: readonly string[] | undefined): void {
    const { branch: _branch, concurrent_with: _concurrent, ...reported } = data
    const branch = worktreeBranchOf(agent)
    const tracked = reported.tool === 'bash' || reported.tool.startsWith('mcp__')
    const concurrent =
      tracked && reported.by_tool_call
        ? this.commands.overlapping(projectDirOf(agent), { agent_id: agent.id, call_id: reported.by_tool_call })
        : []
    const placed = { ...reported, ...(branch ? { branch } : {}), ...(concurrent.length > 0 ? { concurrent_with: concurrent } : {}) }
    // Its contents go into the store with it, each checked against the hash it names.
    const admitted = admitFileContents(placed, contents)
    let changes = this.jobs.get(agent.job)
    if (!changes) this.jobs.set(agent.job, (changes = new JobFileChanges()))
    if (!changes.admit(agent.id, admitted.data)) return
    this.trace.agent(agent, 'file.change', admitted.data, ts, admitted.contents)
  }
}

/**
 * What the supervisor takes of the contents an agent process sends with a `file.change` (base64
 * in the `event` message): only versions within the cap whose SHA-256 is the event's
 * `hash_before` or `hash_after`, each once. The event's `content_stored` is made true only when
 * every version it names is among them, so a stored event never names a hash with no row (the
 * trace writer inserts these contents in the transaction that inserts the event).
 */
export function admitFileContents(
  data: EventData<'file.change'>,
  encoded: readonly string[] | undefined,
): { data: EventData<'file.change'>; contents: Buffer[] } {
  const named = new Set([data.hash_before, data.hash_after].filter((hash): hash is string => hash !== null))
  const contents = new Map<string, Buffer>()
  for (const text of encoded ?? []) {
    const bytes = Buffer.from(text, 'base64')
    if (bytes.byteLength > fileContentCapBytes) continue
    const hash = createHash('sha256').update(bytes).digest('hex')
    if (named.has(hash)) contents.set(hash, bytes)
  }
  const versionsKnown = (data.bytes_before === null || data.hash_before !== null) && (data.bytes_after === null || data.hash_after !== null)
  const stored = data.content_stored && versionsKnown && [...named].every((hash) => contents.has(hash))
  return {
    data: stored === data.content_stored ? data : { ...data, content_stored: stored },
    contents: stored ? [...contents.values()] : [],
  }
}

/**
 * A job's last recorded change of each path, to drop `bash` changes that are another agent's
 * echo. A command's before/after snapshot sees every write made in the folder while it ran; a
 * `write_file` or `edit_file` of another agent meanwhile is recorded by that agent first (it is
 * sent as it writes), so a `bash` change of the same path from the same version to the same
 * version is that write seen again, not the command's. A command that changed the file after the
 * other write ends at another version and is kept. Two agents' commands writing one file at once
 * are still not told apart (docs/trace-format.md).
 */
export class JobFileChanges {
  private readonly last = new Map<string, { agent_id: string; hash_before: string | null; hash_after: string | null }>()

  /** Whether `data` is to be recorded for `agentId`; remembers it when it is. */
  admit(agentId: string, data: EventData<'file.change'>): boolean {
    // A path is one file per folder: the project's, or a worktree's (by its branch).
    const key = (path: string) => `${data.branch ?? ''}\0${path}`
    const earlier = this.last.get(key(data.path))
    const echo =
      data.tool === 'bash' &&
      data.kind !== 'renamed' &&
      earlier !== undefined &&
      earlier.agent_id !== agentId &&
      earlier.hash_before === data.hash_before &&
      earlier.hash_after === data.hash_after
    if (echo) return false
    this.last.set(key(data.path), { agent_id: agentId, hash_before: data.hash_before, hash_after: data.hash_after })
    if (data.from_path !== undefined) this.last.delete(key(data.from_path))
    return true
  }
}
