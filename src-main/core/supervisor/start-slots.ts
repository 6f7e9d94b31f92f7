import type { AgentRuntime } from './runtime'

/**
 * How many agent processes may be starting at once. Fifty children granted together would
 * otherwise all load at the same moment on a few cores: each takes longer than it would alone,
 * the first model calls wait for the slowest, and under load some miss the ready timeout (seen
 * on 2 cores). Past the limit, a start waits until an earlier process is ready or gone.
 */
export class StartSlots {
  private readonly holders = new Set<AgentRuntime>()
  private readonly waiting: { agent: AgentRuntime; start: () => void }[] = []

  constructor(private readonly limit: number) {}

  run(agent: AgentRuntime, start: () => void): void {
    if (this.holders.size < this.limit) {
      this.holders.add(agent)
      start()
    } else {
      this.waiting.push({ agent, start })
    }
  }

  /** The agent's process is ready, gone, or never started: its slot goes to the next. */
  release(agent: AgentRuntime): void {
    if (!this.holders.delete(agent)) return
    const next = this.waiting.shift()
    if (!next) return
    this.holders.add(next.agent)
    next.start()
  }
}
