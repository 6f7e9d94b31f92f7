/** A word of a command line, each character marked with how it was written (see shell-words.ts). */

/**
 * How a character of a word was written:
 * - `l`: plain, unquoted;
 * - `q`: quoted or escaped;
 * - `a`: from ANSI-C quoting (`$'\x72'`);
 * - `d`: part of an expansion (`$X`, `${X:-y}`, `$(…)`, backticks, `<(…)`, `$((…))`), as written;
 * - `g`: an unquoted glob character (`*`, `?`, `[`);
 * - `b`: unquoted brace syntax (`{`, `,`, `}`) of a brace expansion not done (a redirection's target).
 */
export type Mark = 'l' | 'q' | 'a' | 'd' | 'g' | 'b'

/** One word of a command, quotes removed. */
export interface Word {
  /** The word with quotes and backslashes removed; expansions kept as written (`$HOME/x`, `$(…)`). */
  text: string
  /** One Mark per character of `text`. */
  marks: string
  /** Index in `text` of the first expansion (`$…`, `` `…` ``, `<(…)`), or -1 when there is none. */
  dynamicAt: number
  /** Index in `text` of the first unquoted glob character (`*`, `?`, `[`), or -1. */
  globAt: number
  /** Whether any part of the word was quoted or escaped. */
  quoted: boolean
  /** The inner text of every command substitution and process substitution in the word. */
  substitutions: string[]
  /** The word as written in the command line. */
  source: string
}

/** A word from its text and marks. */
export function makeWord(text: string, marks: string, substitutions: string[], source: string): Word {
  return {
    text,
    marks,
    dynamicAt: marks.indexOf('d'),
    globAt: marks.indexOf('g'),
    quoted: marks.includes('q') || marks.includes('a'),
    substitutions,
    source,
  }
}

/** The word from character `start` on (an option's value glued to it: `-oFILE`, `--output=FILE`). */
export const sliceWord = (word: Word, start: number): Word =>
  makeWord(word.text.slice(start), word.marks.slice(start), word.substitutions, word.source)
