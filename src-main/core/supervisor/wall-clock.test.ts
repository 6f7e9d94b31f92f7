import { afterEach, describe, expect, it, vi } from 'vitest'
import { WallClock } from './wall-clock'

describe('WallClock', () => {
  afterEach(() => vi.useRealTimers())

  it('runs out after its limit of running time; paused time does not count', () => {
    vi.useFakeTimers()
    const expired = vi.fn()
    const clock = new WallClock(1000, expired, () => Date.now())
    clock.resume()
    vi.advanceTimersByTime(600)
    clock.pause()
    expect(clock.leftMs).toBe(400)
    vi.advanceTimersByTime(10_000)
    expect(expired).not.toHaveBeenCalled()
    clock.resume()
    clock.resume()
    vi.advanceTimersByTime(399)
    expect(expired).not.toHaveBeenCalled()
    vi.advanceTimersByTime(1)
    expect(expired).toHaveBeenCalledTimes(1)
    clock.resume()
    vi.advanceTimersByTime(10_000)
    expect(expired).toHaveBeenCalledTimes(1)
  })

  it('never runs out once stopped', () => {
    vi.useFakeTimers()
    const expired = vi.fn()
    const clock = new WallClock(100, expired, () => Date.now())
    clock.resume()
    clock.stop()
    clock.resume()
    vi.advanceTimersByTime(1000)
    expect(expired).not.toHaveBeenCalled()
  })
})
