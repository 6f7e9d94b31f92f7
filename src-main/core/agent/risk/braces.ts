/** Brace expansion as bash does it (`{a,b}c` → `ac bc`, `x{1..3}` → `x1 x2 x3`), on marked words. */
import { makeWord, type Word } from './words'

/** A brace expansion making more words than this is not expanded: the word counts as computed at run time. */
export const maxBraceWords = 256

interface Piece {
  text: string
  marks: string
}

/**
 * The words bash makes of a word by brace expansion (`{a,b}c` → `ac bc`, `x{1..3}` → `x1 x2 x3`),
 * or the word itself; leftover braces become plain text. Null when it makes more than
 * `maxBraceWords` words.
 */
export function expandBraces(word: Word): Word[] | null {
  if (!word.marks.includes('b')) return [word]
  if (word.marks.replace(/[^b]/g, '').length > 4 * maxBraceWords) return null
  const pieces = expandPiece({ text: word.text, marks: word.marks }, { left: maxBraceWords })
  if (!pieces) return null
  return pieces.map((piece) => plainBraces(makeWord(piece.text, piece.marks, word.substitutions, word.source)))
}

/** The word with its braces as plain text. */
export const plainBraces = (word: Word): Word => makeWord(word.text, word.marks.replace(/b/g, 'l'), word.substitutions, word.source)

function expandPiece(piece: Piece, budget: { left: number }): Piece[] | null {
  const { text, marks } = piece
  for (let open = 0; open < text.length; open++) {
    if (marks[open] !== 'b' || text[open] !== '{') continue
    let depth = 0
    let close = -1
    const commas: number[] = []
    for (let j = open; j < text.length && close < 0; j++) {
      if (marks[j] !== 'b') continue
      if (text[j] === '{') depth += 1
      else if (text[j] === '}' && --depth === 0) close = j
      else if (text[j] === ',' && depth === 1) commas.push(j)
    }
    if (close < 0) continue
    const slice = (from: number, to: number): Piece => ({ text: text.slice(from, to), marks: marks.slice(from, to) })
    let alternatives: Piece[] | null
    if (commas.length > 0) {
      alternatives = [open, ...commas].map((at, index) => slice(at + 1, index < commas.length ? commas[index]! : close))
    } else {
      alternatives = sequence(slice(open + 1, close))
      if (!alternatives) continue
    }
    const prefix = slice(0, open)
    const suffix = slice(close + 1, text.length)
    const results: Piece[] = []
    for (const alternative of alternatives) {
      const expanded = expandPiece(
        { text: prefix.text + alternative.text + suffix.text, marks: prefix.marks + alternative.marks + suffix.marks },
        budget,
      )
      if (!expanded) return null
      results.push(...expanded)
      if (results.length > budget.left) return null
    }
    return results
  }
  return [piece]
}

/** `1..5`, `05..10..2`, `a..e`: the values of a sequence expression, or null when it is not one. */
function sequence(inner: Piece): Piece[] | null {
  if (/[^l]/.test(inner.marks)) return null
  const match = /^(-?\d+|[a-zA-Z])\.\.(-?\d+|[a-zA-Z])(?:\.\.(-?\d+))?$/.exec(inner.text)
  if (!match) return null
  const [, from, to, stepText] = match as unknown as [string, string, string, string | undefined]
  const numeric = /\d/.test(from)
  if (numeric !== /\d/.test(to)) return null
  const start = numeric ? Number(from) : from.charCodeAt(0)
  const end = numeric ? Number(to) : to.charCodeAt(0)
  const step = Math.abs(Number(stepText ?? 1)) || 1
  const count = Math.floor(Math.abs(end - start) / step) + 1
  if (count > maxBraceWords) return Array.from({ length: maxBraceWords + 1 }, () => ({ text: '', marks: '' }))
  const width = numeric && (/^-?0\d/.test(from) || /^-?0\d/.test(to)) ? Math.max(from.length, to.length) : 0
  const values: Piece[] = []
  for (let k = 0; k < count; k++) {
    const value = start + (end >= start ? k * step : -k * step)
    const text = numeric
      ? width
        ? `${value < 0 ? '-' : ''}${String(Math.abs(value)).padStart(width - (value < 0 ? 1 : 0), '0')}`
        : String(value)
      : String.fromCharCode(value)
    values.push({ text, marks: 'l'.repeat(text.length) })
  }
  return values
}
