import { describe, expect, it } from 'vitest'
import { formatSeconds, isWholeJob, minSpanSeconds, panRange, zoomRange } from './time-range'

const job = { min: 0, max: 100 }

describe('time range', () => {
  it('zooms about the pointer: the time under it stays where it was', () => {
    const zoomed = zoomRange(job, job, 25, 0.5)
    expect(zoomed).toEqual({ min: 12.5, max: 62.5 })
    expect((25 - zoomed.min) / (zoomed.max - zoomed.min)).toBeCloseTo(0.25)
  })

  it('never zooms out past the job, nor in past the smallest span', () => {
    expect(zoomRange({ min: 40, max: 60 }, job, 50, 100)).toEqual(job)
    const deep = zoomRange({ min: 40, max: 40.06 }, job, 40.03, 0.01)
    expect(deep.max - deep.min).toBeCloseTo(minSpanSeconds)
  })

  it('pans by a span and stops at either end of the job', () => {
    expect(panRange({ min: 10, max: 30 }, job, 5)).toEqual({ min: 15, max: 35 })
    expect(panRange({ min: 10, max: 30 }, job, -50)).toEqual({ min: 0, max: 20 })
    expect(panRange({ min: 70, max: 90 }, job, 50)).toEqual({ min: 80, max: 100 })
  })

  it('treats a range over the whole job as no zoom, so a live job keeps growing into view', () => {
    expect(isWholeJob({ min: 0, max: 99.95 }, job)).toBe(true)
    expect(isWholeJob({ min: 0, max: 90 }, job)).toBe(false)
  })

  it('formats times from the job start for the axes', () => {
    expect([0, 0.25, 3.456, 42.04, 125].map(formatSeconds)).toEqual(['0s', '250ms', '3.46s', '42s', '2m05s'])
  })
})
