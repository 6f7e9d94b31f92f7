/** What a known key is replaced with wherever it turns up. */
export const redactedMark = '[redacted key]'

/** Keys shorter than this are not looked for: a short "key" would redact ordinary text. */
const minimumKeyLength = 8

/**
 * Replaces every known key in strings of a JSON-like value (tool output, messages, results),
 * before it is traced or sent to a model: a command that printed a key (a `.env` file, a config
 * dump) does not carry it into the trace, the export, or the next model request.
 */
export class Redactor {
  private readonly keys: string[]

  constructor(keys: Iterable<string | null | undefined>) {
    const unique = new Set<string>()
    for (const key of keys) if (key && key.length >= minimumKeyLength) unique.add(key)
    // Longest first, so a key that contains another is replaced whole.
    this.keys = [...unique].sort((a, b) => b.length - a.length)
  }

  get empty(): boolean {
    return this.keys.length === 0
  }

  text(value: string): string {
    let out = value
    for (const key of this.keys) if (out.includes(key)) out = out.split(key).join(redactedMark)
    return out
  }

  /** A copy of `value` with every string redacted; `value` itself when nothing needed it. */
  value<T>(value: T): T {
    if (this.keys.length === 0) return value
    return this.walk(value) as T
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value)
    if (Array.isArray(value)) return value.map((item) => this.walk(item))
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {}
      for (const [key, item] of Object.entries(value)) out[this.text(key)] = this.walk(item)
      return out
    }
    return value
  }
}
