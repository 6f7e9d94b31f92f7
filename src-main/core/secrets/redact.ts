/**
 * The one redactor: every path by which a secret could leave Arbor (what agents send, before it
 * is traced or sent to a model; provider and collector errors; exports and OTLP pushes; what the
 * UI is sent) takes secrets out with `createRedactor`. Pure TypeScript, no Node built-in, so any
 * side may use it.
 *
 * The rules, in the order they apply to a string:
 * 1. Known secrets (every key in the key store, the provider variables' values, a job's own key)
 *    are replaced wherever they occur, longest first. A value shorter than 8 characters is not
 *    looked for: it would redact ordinary words.
 * 2. Key shapes, known or not: `sk-` and at least 16 key characters (OpenAI, Anthropic and
 *    OpenRouter keys, masked ones too), and the credential after `Bearer ` or `Basic `.
 * 3. Credentials given by name: the value of a header named authorization, proxy-authorization,
 *    x-api-key or api-key (api_key, apikey), as `name: value`, `name=value` or `"name": "value"`;
 *    an environment assignment `NAME=value` (no spaces, as in `.env` files and shells) of a
 *    variable named `*API_KEY`, `*_TOKEN`, `*_SECRET` or `*_PASSWORD`; a URL query parameter
 *    named key, api_key, token, access_token, secret, password or sig; a URL's `user:password@`.
 * In 2 and 3 only the value goes: the name or scheme stays, so a reader sees what was there. A
 * value under 8 characters stays (a URL's password excepted), and a credential after a scheme or
 * a header name must hold a digit, `+`, `/` or `=`, so prose ("Bearer authentication") and code
 * (`Authorization: header`) read as they were. Redacting is idempotent: the mark matches no rule.
 *
 * `redactDeep` applies the same to every string of a JSON-like value, its property names too, and
 * replaces the whole string value of a property named like one of those headers.
 */

/** What a secret is replaced with wherever it turns up. */
export const redactedMark = '[redacted key]'

/** Known secrets shorter than this are not looked for; a pattern's value shorter than this is kept. */
export const minimumSecretLength = 8

/**
 * The environment variables that hold provider keys: an agent process never inherits them, its
 * commands run without them, and their values are redacted wherever they turn up.
 */
export const providerKeyVariables = ['OPENAI_API_KEY', 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'OPENROUTER_API_KEY'] as const

/** Header (and property) names whose value is a credential, lower case. */
export const secretHeaderNames: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'api_key',
  'apikey',
])

export interface Redactor {
  /** `text` with every secret replaced by `redactedMark`. */
  redact(text: string): string
  /** A copy of `value` with every string redacted; `value` itself (or the part) where nothing changed. */
  redactDeep<T>(value: T): T
  /**
   * Rule 1 alone, for text that went through all the rules when it was stored (an export, an
   * OTLP push): a key saved since then, or kept in a trace imported from elsewhere, still goes.
   * Safe on JSON text: each secret is also looked for as JSON escapes it.
   */
  redactKnown(text: string): string
  /** What rule 1 looks for: the known secrets, each also as JSON escapes it, longest first. */
  readonly secrets: readonly string[]
}

// Each pattern below is (what stays)(the value that goes).
const token = '[A-Za-z0-9._~+/=-]'
const least = `{${minimumSecretLength},}`
const keyShape = /\bsk-[A-Za-z0-9_*-]{16,}/g
const schemeCredential = new RegExp(`\\b((?:Bearer|Basic)\\s+)(${token}${least})`, 'gi')
const headerCredential = new RegExp(
  `((?:authorization|api[-_]?key)["']?\\s*[:=]\\s*["']?)((?:(?:Bearer|Basic|Token)\\s+)?${token}${least})`,
  'gi',
)
const variableCredential = new RegExp(`\\b([A-Z][A-Z0-9_]*(?:API_KEY|_TOKEN|_SECRET|_PASSWORD)=["']?)([^\\s"'$\`[\\]]${least})`, 'g')
const queryCredential = new RegExp(
  `([?&](?:key|api[-_]?key|x-api-key|token|access_token|secret|password|sig)=)([^&#\\s"'<>[\\]]${least})`,
  'gi',
)
// (scheme://user:)(password)@: the password goes whatever its length.
const urlPassword = /(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@[\]]+:)([^@\s/[\]]+)(?=@)/gi

// A word of prose or an identifier in code has none of these; a key almost always has one.
const credentialCharacter = /[\d+/=]/

/** Replaces each match's value, keeping what stays; with `needsDigit`, a value without a digit, `+`, `/` or `=` is kept too. */
function redactValues(text: string, pattern: RegExp, needsDigit: boolean): string {
  pattern.lastIndex = 0
  if (!pattern.test(text)) return text
  return text.replace(pattern, (match: string, stays: string, value: string) =>
    needsDigit && !credentialCharacter.test(value) ? match : stays + redactedMark,
  )
}

// Every rule needs one of these words; most text has none, and one pass tells. Each rule then
// runs only where a word of its own is in the text (looked for in lower case).
const anyRule = /sk-|bearer|basic|authoriz|api[-_]?key|(?:_token|_secret|_password)=|:\/\/|[?&][\w-]+=/i
const schemeWord = /bearer|basic/
const headerWord = /authoriz|api[-_]?key/
const variableWord = /(?:api_key|_token|_secret|_password)=/
const queryWord = /[?&](?:key|api|x-api|token|access_token|secret|password|sig)/

function redactShapes(text: string): string {
  if (!anyRule.test(text)) return text
  const lower = text.toLowerCase()
  let out = lower.includes('sk-') ? text.replace(keyShape, redactedMark) : text
  if (schemeWord.test(lower)) out = redactValues(out, schemeCredential, true)
  if (headerWord.test(lower)) out = redactValues(out, headerCredential, true)
  if (variableWord.test(lower)) out = redactValues(out, variableCredential, false)
  if (queryWord.test(lower)) out = redactValues(out, queryCredential, false)
  if (lower.includes('://')) out = redactValues(out, urlPassword, false)
  return out
}

/** A redactor for `secrets` (null, undefined, duplicates and values under 8 characters are ignored). */
export function createRedactor(secrets: Iterable<string | null | undefined>): Redactor {
  const unique = new Set<string>()
  for (const secret of secrets) {
    const trimmed = secret?.trim()
    if (!trimmed || trimmed.length < minimumSecretLength) continue
    unique.add(trimmed)
    unique.add(JSON.stringify(trimmed).slice(1, -1))
  }
  // Longest first, so a secret that contains another is replaced whole.
  const known = [...unique].sort((a, b) => b.length - a.length)

  const redactKnown = (text: string): string => {
    let out = text
    for (const secret of known) if (out.includes(secret)) out = out.split(secret).join(redactedMark)
    return out
  }
  const redact = (text: string): string => redactShapes(redactKnown(text))

  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return redact(value)
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null
      for (let index = 0; index < value.length; index += 1) {
        const item = walk(value[index])
        if (item !== value[index]) (copy ??= value.slice())[index] = item
      }
      return copy ?? value
    }
    if (value !== null && typeof value === 'object') {
      let changed = false
      const copy: Record<string, unknown> = {}
      for (const [name, item] of Object.entries(value)) {
        const cleanName = redact(name)
        const cleanItem =
          typeof item === 'string' && item.length >= minimumSecretLength && secretHeaderNames.has(name.toLowerCase())
            ? redactedMark
            : walk(item)
        if (cleanName !== name || cleanItem !== item) changed = true
        copy[cleanName] = cleanItem
      }
      return changed ? copy : value
    }
    return value
  }

  return { redact, redactDeep: <T>(value: T): T => walk(value) as T, redactKnown, secrets: known }
}
