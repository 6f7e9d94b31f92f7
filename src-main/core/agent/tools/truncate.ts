/** Tool output beyond this many characters is cut (product.md §2). */
export const maxToolOutputCharacters = 50_000

export interface TruncatedOutput {
  output: string
  truncated: boolean
}

/** Keeps the first `limit` characters and says how many were cut. */
export function truncateOutput(output: string, limit = maxToolOutputCharacters): TruncatedOutput {
  if (output.length <= limit) return { output, truncated: false }
  // Never split a surrogate pair: keep one character less instead.
  const kept = /[\uD800-\uDBFF]/.test(output.charAt(limit - 1)) ? limit - 1 : limit
  const cut = output.length - kept
  return {
    output: `${output.slice(0, kept)}\n\n[output truncated: ${cut.toLocaleString('en-US')} characters cut]`,
    truncated: true,
  }
}
