/**
 * A small shell lexer for the risk classifier: enough of POSIX sh / bash to find the simple
 * commands in a command line, their words (quotes removed) and their redirections. It is hand
 * written, not a library, because it is the product here: it has to see a command line the way
 * bash will run it, and say where it cannot (each character of a word carries how it was
 * written, so the classifier can tell `rm` from `$X`, `$'\x72m'` or `{rm,-rf,x}`).
 *
 * What it does as bash does: quote removal, ANSI-C quoting (`$'…'`), brace expansion (`{a,b}`,
 * `{1..3}`), here-documents, `((…))` and `[[…]]` read as one word. What it leaves as written,
 * marked: parameter expansion, command and process substitution (their inner text is kept for
 * the classifier to read), arithmetic, globs. No alias or function expansion.
 */
import { expandBraces, plainBraces } from './braces'
import { makeWord, type Mark, type Word } from './words'

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
  marks = ''
  substitutions: string[] = []

  add(text: string, mark: Mark): void {
    this.text += text
    this.marks += mark.repeat(text.length)
  }
  /** Quotes that enclose nothing still make a word (`''`). */
  markQuoted(): void {
    this.sawQuotes = true
  }
  sawQuotes = false
  get empty(): boolean {
    return this.text === '' && !this.sawQuotes
  }
  build(source: string): Word {
    return makeWord(this.text, this.marks, this.substitutions, source)
  }
}

class Lexer {
  private i = 0
  private readonly tokens: Token[] = []
  private unclosedParentheses = false
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
      } else if (c === '(' && s[this.i + 1] === '(' && this.atCommandStart() && this.readArithmeticCommand()) {
        // `(( i += 1 ))` was read as one word.
      } else if (c === '(' || c === ')') {
        this.i += 1
        this.tokens.push({ kind: 'op', op: c })
      } else if ((c === '<' || c === '>') && s[this.i + 1] === '(') {
        this.tokens.push({ kind: 'word', word: this.readWord() })
      } else if (c === '<' || c === '>') {
        this.readRedirect(null)
      } else if (c === '[' && /^\[\[[ \t\n]/.test(s.slice(this.i, this.i + 3)) && this.atCommandStart()) {
        this.readConditional()
      } else {
        const word = this.readWord()
        const next = s[this.i]
        // `2>file`, `1>>log`: digits glued to a redirection are its file descriptor.
        if ((next === '<' || next === '>') && /^\d+$/.test(word.text) && !word.quoted && s[this.i + 1] !== '(') {
          this.readRedirect(word.text)
        } else {
          this.tokens.push({ kind: 'word', word })
        }
      }
    }
    return this.tokens
  }

  /** Whether a word here would be the first of a command (so `((` and `[[` are keywords). */
  private atCommandStart(): boolean {
    const last = this.tokens.at(-1)
    return last === undefined || (last.kind === 'op' && last.op !== ')')
  }

  /** `(( … ))`: one word, its substitutions kept. False when the parentheses do not close as `))` (then it is two subshells). */
  private readArithmeticCommand(): boolean {
    if (this.unclosedParentheses) return false
    const start = this.i
    const inner = this.readBalanced(start + 2)
    if (this.s[this.i] !== ')') {
      // Unclosed to the end: so is every later `((` (a scan per `((` would be quadratic).
      if (this.i >= this.s.length) this.unclosedParentheses = true
      this.i = start
      return false
    }
    this.i += 1
    this.tokens.push({ kind: 'word', word: makeWord('((…))', 'lllll', substitutionsIn(inner), this.s.slice(start, this.i)) })
    return true
  }

  /** `[[ … ]]`: one word (its `<`, `>`, `&&` compare, they do not redirect or chain), its substitutions kept. */
  private readConditional(): void {
    const start = this.i
    const end = /(^|[ \t\n])\]\](?=$|[ \t\n;&|)])/.exec(this.s.slice(start + 2))
    const close = end ? start + 2 + end.index + end[0].length : this.s.length
    this.i = close
    this.tokens.push({
      kind: 'word',
      word: makeWord('[[…]]', 'lllll', substitutionsIn(this.s.slice(start + 2, close - 2)), this.s.slice(start, close)),
    })
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
    const start = this.i
    const word = new WordBuilder()
    while (this.i < s.length) {
      const c = s[this.i]!
      if ((c === '<' || c === '>') && s[this.i + 1] === '(' && word.empty) {
        const inner = this.readBalanced(this.i + 2)
        word.add(`${c}(…)`, 'd')
        word.substitutions.push(inner)
        continue
      }
      if (metaCharacters.has(c)) break
      if (c === '\\') {
        const next = s[this.i + 1]
        this.i += 2
        if (next === undefined) break
        if (next !== '\n') word.add(next, 'q')
      } else if (c === "'") {
        const end = s.indexOf("'", this.i + 1)
        word.markQuoted()
        word.add(s.slice(this.i + 1, end < 0 ? s.length : end), 'q')
        this.i = end < 0 ? s.length : end + 1
      } else if (c === '"') {
        word.markQuoted()
        this.i += 1
        this.readDoubleQuoted(word)
      } else if (c === '$') {
        this.readDollar(word)
      } else if (c === '`') {
        this.readBacktick(word)
      } else if (c === '*' || c === '?' || c === '[') {
        word.add(c, 'g')
        this.i += 1
      } else {
        word.add(c, c === '{' || c === ',' || c === '}' ? 'b' : 'l')
        this.i += 1
      }
    }
    return word.build(s.slice(start, this.i))
  }

  private readDoubleQuoted(word: WordBuilder): void {
    const s = this.s
    while (this.i < s.length) {
      const c = s[this.i]!
      if (c === '"') {
        this.i += 1
        return
      }
      const next = s[this.i + 1]
      if (c === '\\' && next !== undefined && '$`"\\\n'.includes(next)) {
        if (next !== '\n') word.add(next, 'q')
        this.i += 2
      } else if (c === '$' && s[this.i + 1] !== "'") {
        this.readDollar(word)
      } else if (c === '`') {
        this.readBacktick(word)
      } else {
        word.add(c, 'q')
        this.i += 1
      }
    }
  }

  private readDollar(word: WordBuilder): void {
    const s = this.s
    const next = s[this.i + 1]
    if (next === '(') {
      const start = this.i
      if (s[this.i + 2] === '(') {
        const inner = this.readBalanced(this.i + 2)
        word.add(s.slice(start, this.i), 'd')
        word.substitutions.push(...substitutionsIn(inner))
      } else {
        word.substitutions.push(this.readBalanced(this.i + 2))
        word.add('$(…)', 'd')
      }
    } else if (next === '{') {
      const start = this.i
      word.substitutions.push(...this.readParameter(this.i + 2))
      word.add(s.slice(start, this.i), 'd')
    } else if (next === "'") {
      const { text, end } = ansiC(s, this.i + 2)
      word.markQuoted()
      word.add(text, 'a')
      this.i = end
    } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
      const match = /^[A-Za-z_][A-Za-z0-9_]*/.exec(s.slice(this.i + 1))!
      word.add(`$${match[0]}`, 'd')
      this.i += 1 + match[0].length
    } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
      word.add(`$${next}`, 'd')
      this.i += 2
    } else {
      word.add('$', 'l')
      this.i += 1
    }
  }

  /**
   * From just after `${`: moves past the matching `}` and returns the substitutions inside
   * (`${X:-$(rm -rf x)}` runs that rm when X is unset).
   */
  private readParameter(from: number): string[] {
    const s = this.s
    const substitutions: string[] = []
    let j = from
    let depth = 1
    while (j < s.length) {
      const c = s[j]!
      if (c === '\\') {
        j += 2
      } else if (c === "'") {
        const end = s.indexOf("'", j + 1)
        j = end < 0 ? s.length : end + 1
      } else if (c === '$' && s[j + 1] === '(') {
        substitutions.push(this.readBalanced(j + 2))
        j = this.i
      } else if (c === '`') {
        const end = s.indexOf('`', j + 1)
        substitutions.push(s.slice(j + 1, end < 0 ? s.length : end))
        j = end < 0 ? s.length : end + 1
      } else if (c === '$' && s[j + 1] === '{') {
        depth += 1
        j += 2
      } else if (c === '}' && --depth === 0) {
        break
      } else {
        j += 1
      }
    }
    this.i = Math.min(j + 1, s.length)
    return substitutions
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
    word.add('`…`', 'd')
    word.substitutions.push(inner)
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

/** The command and process substitutions in a piece of text that is not run as commands (arithmetic, `[[ … ]]`). */
function substitutionsIn(text: string): string[] {
  return new Lexer(text)
    .run()
    .flatMap((token) =>
      token.kind === 'word'
        ? token.word.substitutions
        : token.kind === 'redirect' && token.redirect.target
          ? token.redirect.target.substitutions
          : [],
    )
}

const simpleEscapes: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
}

/** `$'…'` from just after its opening quote, decoded as bash does: the text and the index after the closing quote. */
function ansiC(s: string, from: number): { text: string; end: number } {
  let text = ''
  let j = from
  const take = (pattern: RegExp): string => {
    const match = pattern.exec(s.slice(j))
    return match ? match[0] : ''
  }
  while (j < s.length && s[j] !== "'") {
    if (s[j] !== '\\' || j + 1 >= s.length) {
      text += s[j]
      j += 1
      continue
    }
    const escape = s[j + 1]!
    j += 2
    if (simpleEscapes[escape] !== undefined) {
      text += simpleEscapes[escape]
    } else if (/[0-7]/.test(escape)) {
      j -= 1
      const digits = take(/^[0-7]{1,3}/)
      text += String.fromCharCode(parseInt(digits, 8) & 0xff)
      j += digits.length
    } else if (escape === 'x' || escape === 'u' || escape === 'U') {
      const digits = take(escape === 'x' ? /^[0-9a-fA-F]{1,2}/ : escape === 'u' ? /^[0-9a-fA-F]{1,4}/ : /^[0-9a-fA-F]{1,8}/)
      const code = parseInt(digits, 16)
      text += digits === '' ? `\\${escape}` : String.fromCodePoint(Math.min(code, 0x10ffff))
      j += digits.length
    } else if (escape === 'c' && j < s.length) {
      text += String.fromCharCode(s[j]!.toUpperCase().charCodeAt(0) ^ 0x40)
      j += 1
    } else {
      text += `\\${escape}`
    }
  }
  return { text, end: Math.min(j + 1, s.length) }
}

// --- commands ----------------------------------------------------------------------------------

const isAssignmentText = (text: string): boolean => /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(text)

/** A word made of more than `maxBraceWords` words by brace expansion: judged as computed at run time. */
const tooManyWords = (word: Word): Word => makeWord(word.text, 'd'.repeat(word.text.length), word.substitutions, word.source)

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
    if (token.kind === 'word') {
      // Assignments before the command are not brace-expanded (`X={a,b} cmd` sets X to "{a,b}").
      const assignment = isAssignmentText(token.word.text) && current.words.every((word) => isAssignmentText(word.text))
      if (assignment) current.words.push(plainBraces(token.word))
      else current.words.push(...(expandBraces(token.word) ?? [tooManyWords(token.word)]))
    } else if (token.kind === 'redirect') {
      // A redirection's target is one file: braces making several words stay unexpanded (marked `b`).
      const target = token.redirect.target
      const expanded = target ? expandBraces(target) : null
      current.redirects.push(expanded?.length === 1 ? { ...token.redirect, target: expanded[0]! } : token.redirect)
    } else if (token.op === '|') endCommand()
    else {
      endPipeline()
      if (token.op === '(') nodes.push({ kind: 'push' })
      if (token.op === ')') nodes.push({ kind: 'pop' })
    }
  }
  endPipeline()
  return nodes
}
