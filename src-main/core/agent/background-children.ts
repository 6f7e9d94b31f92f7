import type { Envelope } from '../trace/events'
import type { BackgroundChild, BackgroundTasks } from './tools/types'

interface Entry extends BackgroundChild {
  envelope: Envelope | null
  /** Handed to the model already (by `await_tasks` or a delivery): never again. */
  taken: boolean
}

/**
 * The agent's side of its background children: which it started, which have ended, and whose
 * envelope the model has not seen yet. One agent process, one event loop: an envelope taken here
 * is taken once, whether `await_tasks` or the loop's delivery asks first.
 */
export class BackgroundChildren implements BackgroundTasks {
  private readonly children = new Map<string, Entry>()
  private readonly waiters = new Set<() => void>()

  /** The supervisor granted a background spawn (`spawn_started`). */
  started(agentId: string, description: string): void {
    if (!this.children.has(agentId)) this.children.set(agentId, { agent_id: agentId, description, envelope: null, taken: false })
  }

  /** A background child ended (`background_end`); false when it is not one of this agent's. */
  ended(envelope: Envelope): boolean {
    const entry = this.children.get(envelope.agent_id)
    if (!entry || entry.envelope) return false
    entry.envelope = envelope
    for (const wake of [...this.waiters]) wake()
    return true
  }

  /**
   * A child's envelope that no call waits for (a finished child the user followed up ended
   * again): handed out once, as a background child's is.
   */
  delivered(description: string, envelope: Envelope): void {
    this.children.set(envelope.agent_id, { agent_id: envelope.agent_id, description, envelope, taken: false })
    for (const wake of [...this.waiters]) wake()
  }

  running(): BackgroundChild[] {
    return [...this.children.values()].filter((entry) => !entry.envelope).map(({ agent_id, description }) => ({ agent_id, description }))
  }

  known(): BackgroundChild[] {
    return [...this.children.values()].map(({ agent_id, description }) => ({ agent_id, description }))
  }

  takeEnded(): Envelope[] {
    return this.take([...this.children.keys()])
  }

  wait(agentIds: string[] | undefined, timeoutMs: number | undefined, signal?: AbortSignal): Promise<Envelope[]> {
    const ids = agentIds ?? [...this.children.keys()]
    const ready = this.take(ids)
    if (ready.length > 0 || signal?.aborted) return Promise.resolve(ready)
    return new Promise((resolve) => {
      const settle = (): void => {
        this.waiters.delete(check)
        if (timer) clearTimeout(timer)
        signal?.removeEventListener('abort', settle)
        resolve(this.take(ids))
      }
      const check = (): void => {
        if (ids.some((id) => this.hasUntaken(id))) settle()
      }
      const timer = timeoutMs === undefined ? null : setTimeout(settle, timeoutMs)
      this.waiters.add(check)
      signal?.addEventListener('abort', settle, { once: true })
    })
  }

  private hasUntaken(id: string): boolean {
    const entry = this.children.get(id)
    return entry !== undefined && entry.envelope !== null && !entry.taken
  }

  private take(ids: string[]): Envelope[] {
    const taken: Envelope[] = []
    for (const id of ids) {
      const entry = this.children.get(id)
      if (!entry?.envelope || entry.taken) continue
      entry.taken = true
      taken.push(entry.envelope)
    }
    return taken
  }
}
