import type { ArborApi } from '@core/api/contract'
import type { Transport } from '../api/transport'

let current: Transport | null = null

/** Set once at start-up; store actions reach the engine through it. */
export function setTransport(transport: Transport): void {
  current = transport
}

export function transport(): Transport {
  if (!current) throw new Error('the Arbor API is not connected yet')
  return current
}

export const api = (): ArborApi => transport().api
