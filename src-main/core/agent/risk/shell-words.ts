/**
 * A small shell lexer for the risk classifier: enough of POSIX sh / bash to find the simple
 * commands in a command line, their words (quotes removed) and their redirections. It is not a
 * full shell parser: no alias, function or parameter expansion happens; `$VAR`, `$(…)`, backticks
 * and globs stay as written and are flagged so the classifier can judge them conservatively.
 */

/** One word of a command, quotes removed. */
export interface Word {
  /** The word with quotes and backslashes removed; expansions kept as written (`$HOME/x`, `$(…)`). */
  text: string
  /** Index in `text` of the first expansion (`$…`, `` `…` ``, `<(…)`), or -1 when there is none. */
  dynamicAt: number
  /** Index in `text` of the first unquoted glob character (`*`, `?`, `[`), or -1. */
  globAt: number
  /** Whether any part of the word was quoted or escaped. */
  quoted: boolean
  /** The inner text of every command substitution and process substitution in the word. */
  substitutions: string[]
}

export interface Redirect {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<>`, `<`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string
  /** The file descriptor written before the operator (`2>`), if any. */
  fd: string | null
  target: Word | null
  /** A here-document's body (`<<EOF … EOF`). */
  body?: string
}

export interface SimpleCommand {
  words: Word[]
  redirects: Redirect[]
}

/** A parsed command line: pipelines in order, with subshell scopes marked by push/pop. */
export type ShellNode = { kind: 'pipeline'; commands: SimpleCommand[] } | { kind: 'push' } | { kind: 'pop' }

type Token = { kind: 'word'; word: Word } | { kind: 'op'; op: string } | { kind: 'redirect'; redirect: Redirect }

const metaCharacters = new Set([' ', '\t', '\n', ';', '&', '|', '(', ')', '<', '>'])
const redirectOperators = ['<<<', '<<-', '<<', '<>', '<&', '<', '>>', '>|', '>&', '>']

class WordBuilder {
  text = ''
  dynamicAt = -1
  globAt = -1
  quoted = false
  substitutions: string[] = []

  literal(text: string): void {
    this.text += text
  }
  dynamic(text: string, substitution?: string): void {
    if (this.dynamicAt < 0) this.dynamicAt = this.text.length
    this.text += text
    if (substitution !== undefined) this.substitutions.push(substitution)
  }
  glob(char: string): void {
    if (this.globAt < 0) this.globAt = this.text.length
    this.text += char
  }
  get empty(): boolean {
    return this.text === '' && !this.quoted
  }
  build(): Word {
    return { text: this.text, dynamicAt: this.dynamicAt, globAt: this.globAt, quoted: this.quoted, substitutions: this.substitutions }
  }
}

class Lexer {
  private i = 0
  private readonly tokens: Token[] = []
  private readonly pendingHeredocs: { delimiter: string; stripTabs: boolean; redirect: Redirect }[] = []

  constructor(private readonly s: string) {}

  run(): Token[] {
    const s = this.s
    while (this.i < s.length) {
      const c = s[this.i]!
      if (c === ' ' || c === '\t' || c === '\r') {
        this.i += 1
      } else if (c === '\\' && s[this.i + 1] === '\n') {
        this.i += 2
      } else if (c === '\n') {
        this.i += 1
        this.tokens.push({ kind: 'op', op: '\n' })
        this.readHeredocBodies()
      } else if (c === '#') {
        while (this.i < s.length && s[this.i] !== '\n') this.i += 1
      } else if (c === ';') {
        const op = s.startsWith(';;', this.i) ? ';;' : ';'
        this.i += op.length
        this.tokens.push({ kind: 'op', op })
      } else if (c === '&') {
        if (s.startsWith('&&', this.i)) {
          this.i += 2
          this.tokens.push({ kind: 'op', op: '&&' })
        } else if (s.startsWith('&>', this.i)) {
          const op = s.startsWith('&>>', this.i) ? '&>>' : '&>'
          this.i += op.length
          this.redirect(op, null)
        } else {
          this.i += 1
          this.tokens.push({ kind: 'op', op: '&' })
        }
      } else if (c === '|') {
        const op = s.startsWith('||', this.i) ? '||' : s.startsWith('|&', this.i) ? '|&' : '|'
        this.i += op.length
        this.tokens.push({ kind: 'op', op: op === '|&' ? '|' : op })
      } else if (c === '(' || c === ')') {
        this.i += 1
        this.tokens.push({ kind: 'op', op: c })
      } else if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
        this.tokens.push({ kind: 'word', word: this.readWord() })
      } else if (c === '<' || c === '>') {
        this.readRedirect(null)
      } else {
        const word = this.readWord()
        const next = s[this.i]
        // `2>file`, `1>>log`: digits glued to a redirection are its file descriptor.
        if ((next === '<' || next === '>') && !word.quoted && /^\d+$/.test(word.text) && s[this.i + 1] !== '(') {
          this.readRedirect(word.text)
        } else {
          this.tokens.push({ kind: 'word', word })
        }
      }
    }
    return this.tokens
  }

  private readRedirect(fd: string | null): void {
    const op = redirectOperators.find((candidate) => this.s.startsWith(candidate, this.i))!
    this.i += op.length
    this.redirect(op, fd)
  }

  private redirect(op: string, fd: string | null): void {
    while (this.s[this.i] === ' ' || this.s[this.i] === '\t') this.i += 1
    const next = this.s[this.i]
    const startsWord = next !== undefined && (!metaCharacters.has(next) || ((next === '<' || next === '>') && this.s[this.i + 1] === '('))
    const target = startsWord ? this.readWord() : null
    const redirect: Redirect = { op, fd, target }
    this.tokens.push({ kind: 'redirect', redirect })
    if ((op === '<<' || op === '<<-') && target) {
      this.pendingHeredocs.push({ delimiter: target.text, stripTabs: op === '<<-', redirect })
    }
  }

  /** After a newline: each pending here-document's body runs up to its delimiter line. */
  private readHeredocBodies(): void {
    while (this.pendingHeredocs.length > 0) {
      const { delimiter, stripTabs, redirect } = this.pendingHeredocs.shift()!
      const lines: string[] = []
      while (this.i < this.s.length) {
        const end = this.s.indexOf('\n', this.i)
        const line = this.s.slice(this.i, end < 0 ? this.s.length : end)
        this.i = end < 0 ? this.s.length : end + 1
        const compared = stripTabs ? line.replace(/^\t+/, '') : line
        if (compared.replace(/\r$/, '') === delimiter) break
        lines.push(compared)
      }
      redirect.body = lines.join('\n')
    }
  }

  private readWord(): Word {
    const s = this.s
    const word = new WordBuilder()
    while (this.i < s.length) {
      const c = s[this.i]!
      if ((c === '<' || c === '>') && s[this.i + 1] === '(' && word.empty) {
        const inner = this.readBalanced(this.i + 2)
        word.dynamic(`${c}(…)`, inner)
        continue
      }
      if (metaCharacters.has(c)) break
      if (c === '\\') {
        const next = s[this.i + 1]
        this.i += 2
        if (next === undefined) break
        if (next !== '\n') {
          word.quoted = true
          word.literal(next)
        }
      } else if (c === "'") {
        const end = s.indexOf("'", this.i + 1)
        word.quoted = true
        word.literal(s.slice(this.i + 1, end < 0 ? s.length : end))
        this.i = end < 0 ? s.length : end + 1
      } else if (c === '"') {
        word.quoted = true
        this.i += 1
        this.readDoubleQuoted(word)
      } else if (c === '$') {
        this.readDollar(word)
      } else if (c === '`') {
        this.readBacktick(word)
      } else if (c === '*' || c === '?' || c === '[') {
        word.glob(c)
        this.i += 1
      } else {
        word.literal(c)
        this.i += 1
      }
    }
    return word.build()
  }

  private readDoubleQuoted(word: WordBuilder): void {
    const s = this.s
    while (this.i < s.length) {
      const c = s[this.i]!
      if (c === '"') {
        this.i += 1
        return
      }
      if (c === '\\' && '$`"\\\n'.includes(s[this.i + 1] ?? '')) {
        if (s[this.i + 1] !== '\n') word.literal(s[this.i + 1]!)
        this.i += 2
      } else if (c === '$') {
        this.readDollar(word)
      } else if (c === '`') {
        this.readBacktick(word)
      } else {
        word.literal(c)
        this.i += 1
      }
    }
  }

  private readDollar(word: WordBuilder): void {
    const s = this.s
    const next = s[this.i + 1]
    if (next === '(') {
      const arithmetic = s[this.i + 2] === '('
      const start = this.i
      const inner = this.readBalanced(this.i + 2)
      if (arithmetic) word.dynamic(s.slice(start, this.i))
      else word.dynamic('$(…)', inner)
    } else if (next === '{') {
      let depth = 0
      let j = this.i + 1
      for (; j < s.length; j++) {
        if (s[j] === '{') depth += 1
        else if (s[j] === '}' && --depth === 0) break
      }
      word.dynamic(s.slice(this.i, j + 1))
      this.i = j + 1
    } else if (next === "'") {
      // $'…' (ANSI-C quoting): literal text with backslash escapes.
      let j = this.i + 2
      let text = ''
      while (j < s.length && s[j] !== "'") {
        if (s[j] === '\\' && j + 1 < s.length) {
          text += s[j + 1]
          j += 2
        } else {
          text += s[j]
          j += 1
        }
      }
      word.quoted = true
      word.literal(text)
      this.i = j + 1
    } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i + 1))!
      word.dynamic(`$${match[0]}`)
      this.i += 1 + match[0].length
    } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      word.dynamic(`$${next}`)
      this.i += 2
    } else {
      word.literal('$')
      this.i += 1
    }
  }

  private readBacktick(word: WordBuilder): void {
    const s = this.s
    let j = this.i + 1
    let inner = ''
    while (j < s.length && s[j] !== '`') {
      if (s[j] === '\\' && j + 1 < s.length) {
        inner += s[j + 1]
        j += 2
      } else {
        inner += s[j]
        j += 1
      }
    }
    word.dynamic('`…`', inner)
    this.i = j + 1
  }

  /** From just after an opening `(`: returns the text up to its matching `)` and moves past it. */
  private readBalanced(from: number): string {
    const s = this.s
    let depth = 1
    let j = from
    while (j < s.length) {
      const c = s[j]!
      if (c === '\\') {
        j += 2
        continue
      }
      if (c === "'") {
        const end = s.indexOf("'", j + 1)
        j = end < 0 ? s.length : end + 1
        continue
      }
      if (c === '"') {
        j += 1
        while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1
        j += 1
        continue
      }
      if (c === '(') depth += 1
      else if (c === ')' && --depth === 0) break
      j += 1
    }
    this.i = Math.min(j + 1, s.length)
    return s.slice(from, Math.min(j, s.length))
  }
}

/** Splits a command line into pipelines of simple commands (`;`, `&&`, `||`, `&`, newlines end a pipeline; `|` joins). */
export function parseShell(command: string): ShellNode[] {
  const nodes: ShellNode[] = []
  let pipeline: SimpleCommand[] = []
  let current: SimpleCommand = { words: [], redirects: [] }
  const endCommand = (): void => {
    if (current.words.length > 0 || current.redirects.length > 0) pipeline.push(current)
    current = { words: [], redirects: [] }
  }
  const endPipeline = (): void => {
    endCommand()
    if (pipeline.length > 0) nodes.push({ kind: 'pipeline', commands: pipeline })
    pipeline = []
  }
  for (const token of new Lexer(command).run()) {
    if (token.kind === 'word') current.words.push(token.word)
    else if (token.kind === 'redirect') current.redirects.push(token.redirect)
    else if (token.op === '|') endCommand()
    else {
      endPipeline()
      if (token.op === '(') nodes.push({ kind: 'push' })
      if (token.op === ')') nodes.push({ kind: 'pop' })
    }
  }
  endPipeline()
  return nodes
}
