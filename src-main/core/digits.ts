/**
 * An integer with its thousands grouped, as `toLocaleString('en')` writes it: 1,000,000. Used
 * where a process formats numbers on its way up: the first `toLocaleString` in a process loads
 * ICU's number formatting, 27 ms here, which job-form.ts paid at import in every CLI, `serve` and
 * app start, and an agent paid at its first truncated output.
 */
export function groupDigits(value: number): string {
  if (!Number.isSafeInteger(value)) return value.toLocaleString('en')
  const digits = String(Math.abs(value))
  let grouped = digits.slice(0, digits.length % 3 || 3)
  for (let index = grouped.length; index < digits.length; index += 3) grouped += `,${digits.slice(index, index + 3)}`
  return value < 0 ? `-${grouped}` : grouped
}
