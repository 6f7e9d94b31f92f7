/**
 * An agent's wall-clock limit that does not run while the agent waits for the user (an approval):
 * `pause` keeps what is left, `resume` starts counting again from there. When the time is up the
 * callback runs once.
 */
export class WallClock {
  private remaining: number
  private since: number | null = null
  private timer: NodeJS.Timeout | null = null
  private done = false

  constructor(
    limitMs: number,
    private readonly onExpired: () => void,
    private readonly now: () => number = Date.now,
  ) {
    this.remaining = limitMs
  }

  /** Starts or resumes counting; nothing when it already runs or has expired. */
  resume(): void {
    if (this.done || this.timer) return
    this.since = this.now()
    this.timer = setTimeout(() => {
      this.done = true
      this.timer = null
      this.onExpired()
    }, this.remaining)
    this.timer.unref()
  }

  /** Stops counting and keeps what is left. */
  pause(): void {
    if (!this.timer || this.since === null) return
    clearTimeout(this.timer)
    this.timer = null
    this.remaining = Math.max(0, this.remaining - (this.now() - this.since))
    this.since = null
  }

  /** Stops for good (the agent ended). */
  stop(): void {
    this.pause()
    this.done = true
  }

  /** What is left, in milliseconds. */
  get leftMs(): number {
    return this.timer && this.since !== null ? Math.max(0, this.remaining - (this.now() - this.since)) : this.remaining
  }
}
