/** Picking arguments out of a command's words: positionals, option values. */
import { sliceWord, type Word } from './words'

/** Arguments that are not options or option values. */
export function positionals(args: Word[], valued: Set<string>): Word[] {
  const result: Word[] = []
  let optionsDone = false
  for (let i = 0; i < args.length; i++) {
    const text = args[i]!.text
    if (!optionsDone && text === '--') optionsDone = true
    else if (!optionsDone && text.startsWith('-') && text !== '-') i += valued.has(text) ? 1 : 0
    else result.push(args[i]!)
  }
  return result
}

/** Values of the given options, as `-o FILE`, `--output=FILE` or `-oFILE`. */
export function optionValues(args: Word[], options: string[]): Word[] {
  const values: Word[] = []
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!
    if (options.includes(word.text) && args[i + 1]) {
      values.push(args[i + 1]!)
      i += 1
      continue
    }
    for (const option of options) {
      const glued = option.startsWith('--') ? `${option}=` : option.length === 2 ? option : null
      if (glued && word.text.startsWith(glued) && word.text.length > glued.length) {
        values.push(sliceWord(word, glued.length))
      }
    }
  }
  return values
}

/** The first reason `judge` gives for any of the words. */
export function firstReason(words: Word[], judge: (word: Word) => string | null): string | null {
  for (const word of words) {
    const reason = judge(word)
    if (reason) return reason
  }
  return null
}
