import { useRef } from 'react'
import { useArbor, type ArborState } from '.'

/**
 * useShallow for a selector that returns a flat object: hands back the previous object while every
 * field is the same (Object.is). zustand's shallow copies both objects' entries into Maps on each
 * call, and a graph node runs its selector on every live batch, 200 or 2,000 of them at a time.
 */
export function useArborFields<T extends Record<string, unknown>>(selector: (state: ArborState) => T): T {
  const previous = useRef<T | undefined>(undefined)
  return useArbor((state) => {
    const next = selector(state)
    if (previous.current !== undefined && sameFields(previous.current, next)) return previous.current
    previous.current = next
    return next
  })
}

/** Whether two objects of the same shape hold the same values, field by field. */
export function sameFields<T extends Record<string, unknown>>(before: T, after: T): boolean {
  for (const key in after) if (!Object.is(before[key], after[key])) return false
  return true
}
