/**
 * The replay scrubber's scale: seconds from the job's first event, with any value allowed
 * (`step="any"`). A stepped range snaps its value to min + n × step, and a step of a 2,000th of
 * the job rarely divides a float maximum exactly: the browser then keeps the thumb a step short
 * of the end (7.912 of a 7.916 s job), before the job's last events, so the tree never ended. A
 * slider position maps back to a whole millisecond (event times are whole milliseconds), and the
 * maximum or past it is the job's end itself: the final tree.
 */
export interface ReplaySliderRange {
  max: number
  step: 'any'
}

export function replaySliderRange(startMs: number, endMs: number): ReplaySliderRange {
  return { max: Math.max(0, endMs - startMs) / 1000, step: 'any' }
}

/** The slider's value at a replay time. */
export const replaySliderValue = (startMs: number, atMs: number): number => (atMs - startMs) / 1000

/** The replay time of a slider value (as the input reports it, a decimal string): the end at the maximum or past it. */
export function replayTimeAt(startMs: number, endMs: number, value: string): number {
  const seconds = Number(value)
  if (!Number.isFinite(seconds) || seconds <= 0) return startMs
  const ms = startMs + Math.round(seconds * 1000)
  return ms >= endMs ? endMs : ms
}
