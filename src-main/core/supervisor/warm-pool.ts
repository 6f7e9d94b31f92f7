import { performance } from 'node:perf_hooks'
import type { ToAgent } from '../protocol/messages'
import type { AgentProcess, ProcessHost } from './process-host'

/** How often the pool looks for a quiet moment to refill in, and what counts as quiet (see refillSoon). */
const quietCheckMs = 25
const quietUtilization = 0.25
const maxRefillDelayMs = 1000

/**
 * Agent processes started ahead, so a granted `task` does not wait for a process to load.
 *
 * Each pooled process serves exactly one agent and is never given back: an agent's process holds
 * its history, the commands it started and what they left in its environment, so isolation is
 * per process. Taking one starts its replacement (once the agent is under way, at a quiet moment);
 * one that dies while it waits is replaced too.
 * The pool fills on the first request, not when it is made, so an engine that runs no job (an
 * export, an import) starts no process. Pooled processes come from the same host as the others,
 * with the same environment and process group rules; only their `agentId` is a pool label,
 * since their agent is not known yet.
 */
export class WarmPool implements ProcessHost {
  private readonly idle: PooledProcess[] = []
  /** Set while a refill waits for its quiet moment. */
  private refillTimer: NodeJS.Timeout | null = null
  private closed = false
  private started = 0

  constructor(
    private readonly host: ProcessHost,
    /** How many processes wait; 0 turns the pool off (every agent starts its own, on demand). */
    private readonly size: number,
  ) {}

  spawn(options: { agentId: string }): AgentProcess {
    if (this.size <= 0 || this.closed) return this.host.spawn(options)
    const taken = this.idle.shift()
    if (!taken) {
      const process = this.host.spawn(options)
      this.refillSoon()
      return process
    }
    // Its replacement starts once the agent is under way (its first message, or its end): a
    // process starting takes a core for a tenth of a second, which the agent needs for its start.
    taken.handOver(() => this.refillSoon())
    return taken
  }

  /** Pids of the processes waiting, for tests and the bench. */
  get waiting(): (number | undefined)[] {
    return this.idle.map((pooled) => pooled.pid)
  }

  /** Ends every waiting process and starts no more; resolves once they are gone. */
  async close(): Promise<void> {
    this.closed = true
    if (this.refillTimer) clearTimeout(this.refillTimer)
    const ending = this.idle.splice(0).map((pooled) => pooled.end())
    await Promise.all(ending)
  }

  /**
   * Refills at the next quiet moment: a fork stalls this thread for several ms (more the larger
   * this process is: 6 ms at 170 MB here), and the new process takes a core for a tenth of a
   * second. Forked while agents are busy, those come out of their steps (a third of a ms a step in
   * bench/supervisor.ts); while they wait on a model, as they mostly do, nobody pays for them. So
   * the pool waits until this thread was busy less than a quarter of the last `quietCheckMs`, or
   * `maxRefillDelayMs` at most.
   */
  private refillSoon(): void {
    if (this.refillTimer || this.closed) return
    let since = performance.eventLoopUtilization()
    let waited = 0
    const check = (): void => {
      const busy = performance.eventLoopUtilization(since).utilization
      since = performance.eventLoopUtilization()
      waited += quietCheckMs
      if (busy > quietUtilization && waited < maxRefillDelayMs) {
        this.refillTimer = setTimeout(check, quietCheckMs)
        return
      }
      this.refillTimer = null
      this.fill()
    }
    this.refillTimer = setTimeout(check, quietCheckMs)
  }

  private fill(): void {
    while (!this.closed && this.idle.length < this.size) {
      let pooled: PooledProcess
      try {
        pooled = new PooledProcess(this.host.spawn({ agentId: `pooled_${++this.started}` }), () => this.replace(pooled))
      } catch {
        // The host cannot start processes now: agents start on demand and report why.
        return
      }
      this.idle.push(pooled)
    }
  }

  private replace(pooled: PooledProcess): void {
    const index = this.idle.indexOf(pooled)
    if (index < 0) return
    this.idle.splice(index, 1)
    this.refillSoon()
  }
}

/**
 * A process waiting in the pool. Its `ready` (and anything else it says before it has an agent)
 * is kept and delivered to whoever takes it, as a process started for them would have said it.
 */
class PooledProcess implements AgentProcess {
  private readonly listeners: ((message: unknown) => void)[] = []
  private readonly exitListeners: ((code: number | null, signal: string | null) => void)[] = []
  private readonly early: unknown[] = []
  private exit: [number | null, string | null] | null = null
  private readonly exited: Promise<void>
  private taken = false
  private saidReady = false
  private underWay: (() => void) | null = null

  constructor(
    private readonly process: AgentProcess,
    onDiedWaiting: () => void,
  ) {
    process.onMessage((message) => {
      // Its first message is its ready; what follows is its agent's.
      if (this.saidReady) this.reportUnderWay()
      this.saidReady = true
      // Kept while nobody listens, and while what came earlier is still to be delivered.
      if (this.listeners.length === 0 || this.early.length > 0) return this.early.push(message)
      for (const listener of this.listeners) listener(message)
    })
    this.exited = new Promise((resolve) => {
      process.onExit((code, signal) => {
        this.exit = [code, signal]
        if (!this.taken) onDiedWaiting()
        this.reportUnderWay()
        for (const listener of this.exitListeners) listener(code, signal)
        resolve()
      })
    })
  }

  get pid(): number | undefined {
    return this.process.pid
  }

  /** Taken by an agent; `onUnderWay` runs once, at the first message after its ready, or at its exit. */
  handOver(onUnderWay: () => void): void {
    this.taken = true
    this.underWay = onUnderWay
  }

  private reportUnderWay(): void {
    const report = this.underWay
    this.underWay = null
    report?.()
  }

  end(): Promise<void> {
    this.process.kill(true)
    return this.exited
  }

  send(message: ToAgent): void {
    this.process.send(message)
  }

  onMessage(listener: (message: unknown) => void): void {
    this.listeners.push(listener)
    if (this.listeners.length > 1) return
    // Delivered after the caller has wired the process up, as a live process's messages are.
    queueMicrotask(() => {
      for (const message of this.early.splice(0)) for (const each of this.listeners) each(message)
    })
  }

  onExit(listener: (code: number | null, signal: string | null) => void): void {
    this.exitListeners.push(listener)
    const exit = this.exit
    if (exit) queueMicrotask(() => listener(...exit))
  }

  kill(force: boolean): void {
    this.process.kill(force)
  }
}
