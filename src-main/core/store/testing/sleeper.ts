import { spawn, type ChildProcess } from 'node:child_process'
import { afterEach } from 'vitest'

export interface Sleeper {
  pid: number
  /** SIGKILLs the process and resolves once it is reaped: from then on its pid is gone. */
  kill(): Promise<void>
}

/** Real processes that do nothing until killed, for a live pid; killed after each test. Call at the top of a describe. */
export function useSleepers(): () => Promise<Sleeper> {
  const started: ChildProcess[] = []
  afterEach(() => {
    for (const child of started.splice(0)) child.kill('SIGKILL')
  })
  return async () => {
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 60_000)'], { stdio: 'ignore' })
    started.push(child)
    await new Promise<void>((resolve, reject) => child.once('spawn', resolve).once('error', reject))
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    return {
      pid: child.pid!,
      kill() {
        child.kill('SIGKILL')
        return exited
      },
    }
  }
}
