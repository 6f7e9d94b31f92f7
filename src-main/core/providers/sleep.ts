import { setTimeout as delay } from 'node:timers/promises'
import type { Sleep } from './types'

/** The real clock's sleep; rejects with an AbortError when the signal aborts. */
export const sleep: Sleep = async (ms, signal) => {
  await delay(ms, undefined, { signal })
}
