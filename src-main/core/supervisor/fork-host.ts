import { fork, type ChildProcess } from 'node:child_process'
import type { AgentProcess, ProcessHost } from './process-host'
import { withoutProviderKeys } from './agent-env'
import type { ToAgent } from '../protocol/messages'

export interface ForkHostOptions {
  /** The agent process entry: out/main/agent.js, or the TypeScript source with `--import tsx`. */
  entry: string
  execArgv?: string[]
  /** Extra environment for agents; the parent's environment is passed otherwise. */
  env?: NodeJS.ProcessEnv
}

/** Runs each agent as a Node child process (CLI, serve, tests). */
export class ForkProcessHost implements ProcessHost {
  constructor(private readonly options: ForkHostOptions) {}

  spawn({ agentId }: { agentId: string }): AgentProcess {
    const child = fork(this.options.entry, [], {
      execArgv: this.options.execArgv ?? [],
      env: { ...withoutProviderKeys(process.env), ...this.options.env, ARBOR_AGENT_ID: agentId },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      serialization: 'json',
    })
    return new ForkedAgent(child)
  }
}

class ForkedAgent implements AgentProcess {
  constructor(private readonly child: ChildProcess) {}

  get pid(): number | undefined {
    return this.child.pid
  }

  send(message: ToAgent): void {
    if (this.child.connected) this.child.send(message)
  }

  onMessage(listener: (message: unknown) => void): void {
    this.child.on('message', listener)
  }

  onExit(listener: (code: number | null, signal: string | null) => void): void {
    let reported = false
    const report = (code: number | null, signal: string | null): void => {
      if (reported) return
      reported = true
      listener(code, signal)
    }
    this.child.on('exit', report)
    this.child.on('error', () => report(null, 'error'))
  }

  kill(force: boolean): void {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    this.child.kill(force ? 'SIGKILL' : 'SIGTERM')
  }
}
