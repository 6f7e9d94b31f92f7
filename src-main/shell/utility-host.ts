import { createInterface } from 'node:readline'
import type { ForkOptions, UtilityProcess } from 'electron'
import type { AgentProcess, ProcessHost } from '../core/supervisor/process-host'
import { withoutProviderKeys } from '../core/supervisor/agent-env'
import type { ToAgent } from '../core/protocol/messages'

/**
 * The app's process host: each agent runs in an Electron `utilityProcess` running the built
 * agent entry (out/main/agent-cached.cjs: the agent from its V8 code cache). In the agent,
 * messages arrive on `process.parentPort` rather than `process.on('message')`.
 *
 * `fork` is Electron's `utilityProcess.fork`, passed in so this runs in tests without Electron.
 */
export type Fork = (modulePath: string, args: string[], options: ForkOptions) => UtilityProcess

/** How long after a utility process's `exit` its last messages are waited for. */
const utilityExitSettleMs = 250

export interface UtilityHostOptions {
  fork: Fork
  agentScript: string
  /** Extra environment for agents (the code cache's folder); the app's is passed otherwise, without provider keys. */
  env?: NodeJS.ProcessEnv
  /** Where the agent's stdout and stderr lines go, each prefixed with its id. */
  log?: (line: string) => void
}

export function createUtilityProcessHost(options: UtilityHostOptions): ProcessHost {
  const log = options.log ?? ((line: string) => console.error(line))
  return {
    spawn({ agentId }) {
      const child = options.fork(options.agentScript, [], {
        serviceName: 'arbor-agent',
        stdio: 'pipe',
        env: { ...withoutProviderKeys(process.env), ...options.env, ARBOR_AGENT_ID: agentId },
      })
      forwardOutput(child, agentId, log)
      return wrapUtilityProcess(child, log, agentId)
    },
  }
}

function forwardOutput(child: UtilityProcess, agentId: string, log: (line: string) => void): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (stream === null) continue
    createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => log(`[agent ${agentId}] ${line}`))
  }
}

function wrapUtilityProcess(child: UtilityProcess, log: (line: string) => void, agentId: string): AgentProcess {
  let exited = false
  child.on('exit', () => {
    exited = true
  })
  child.on('error', (type, location) => log(`[agent ${agentId}] fatal error: ${type} at ${location}`))
  return {
    get pid() {
      return child.pid
    },
    send(message: ToAgent) {
      if (!exited) child.postMessage(message)
    },
    onMessage(listener) {
      child.on('message', (message: unknown) => listener(message))
    },
    onExit(listener) {
      // utilityProcess reports only an exit code; there is no signal to pass on. Messages the
      // process sent just before exiting may still be queued behind `exit` (Node's fork does
      // exactly that; the fork host waits for `close`): let them arrive before reporting it.
      child.on('exit', (code) => setTimeout(() => listener(code, null), utilityExitSettleMs))
    },
    kill(force) {
      if (exited) return
      // utilityProcess.kill() cannot choose a signal (it sends SIGTERM on POSIX).
      if (force && child.pid !== undefined) {
        try {
          process.kill(child.pid, 'SIGKILL')
          return
        } catch {
          // Already gone, or not ours to signal: fall back to Electron's kill.
        }
      }
      child.kill()
    },
  }
}
