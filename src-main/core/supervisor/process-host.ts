import type { ToAgent } from '../protocol/messages'

/**
 * Where agent processes run. Two implementations: Node's child_process.fork (CLI, serve,
 * tests) and Electron's utilityProcess (the app). Later: SSH or container hosts.
 */
export interface ProcessHost {
  /**
   * `agentId` names the process in its environment (ARBOR_AGENT_ID); a process the warm pool
   * starts ahead (warm-pool.ts) has a pool label there, since its agent is not known yet.
   */
  spawn(options: { agentId: string }): AgentProcess
}

export interface AgentProcess {
  readonly pid: number | undefined
  send(message: ToAgent): void
  /** Raw packets (protocol `AgentPacket`: a message or several); each message is parsed with `toSupervisorSchema`. */
  onMessage(listener: (message: unknown) => void): void
  onExit(listener: (code: number | null, signal: string | null) => void): void
  /** Ask the process to end (SIGTERM); `force` ends it at once (SIGKILL). */
  kill(force: boolean): void
}
