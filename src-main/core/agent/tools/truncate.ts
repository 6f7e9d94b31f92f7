import { groupDigits } from '../../digits'

/** Tool output beyond this many characters is cut (product.md §2). */
export const maxToolOutputCharacters = 50_000

export interface TruncatedOutput {
  output: string
  truncated: boolean
}

/**
 * Keeps the first `limit` characters and says how many were cut; `alreadyCut` counts characters a
 * tool dropped before returning (they are added to the count).
 */
export function truncateOutput(output: string, limit = maxToolOutputCharacters, alreadyCut = 0): TruncatedOutput {
  if (output.length <= limit && alreadyCut <= 0) return { output, truncated: false }
  let kept = Math.min(limit, output.length)
  // Never split a surrogate pair: keep one character less instead.
  if (kept < output.length && /[\uD800-\uDBFF]/.test(output.charAt(kept - 1))) kept -= 1
  const cut = output.length - kept + Math.max(0, alreadyCut)
  return {
    output: `${output.slice(0, kept)}\n\n[output truncated: ${groupDigits(cut)} characters cut]`,
    truncated: true,
  }
}
