import { closeSync, openSync, readSync } from 'node:fs'
import { StringDecoder } from 'node:string_decoder'
import { StoreError } from '../store/errors'

/**
 * Calls `onLine` for each line of a UTF-8 file with its 1-based number, reading 64 KiB at a time;
 * `onLine` returning false stops the reading there.
 */
export function readLinesSync(file: string, onLine: (line: string, number: number) => boolean | void): void {
  let fd: number
  try {
    fd = openSync(file, 'r')
  } catch (error) {
    throw new StoreError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`, { cause: error })
  }
  try {
    const buffer = Buffer.allocUnsafe(64 * 1024)
    const decoder = new StringDecoder('utf8')
    let rest = ''
    let number = 0
    for (;;) {
      const read = readSync(fd, buffer, 0, buffer.length, null)
      if (read === 0) break
      const text = rest + decoder.write(buffer.subarray(0, read))
      const lines = text.split('\n')
      rest = lines.pop() ?? ''
      for (const line of lines) if (onLine(line, ++number) === false) return
    }
    rest += decoder.end()
    if (rest !== '') onLine(rest, ++number)
  } finally {
    closeSync(fd)
  }
}
