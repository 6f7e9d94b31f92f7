import { readLinesSync } from '../read-lines'
import { eventTypes } from '../../trace/events'
import { StoreError } from '../../store/errors'
import { isRecord } from './entries'

export type TraceFileFormat = 'arbor-trace' | 'claude-code'

/** Entry types Claude Code starts a transcript with, besides lines that name their sessionId. */
const claudeCodeTypes: ReadonlySet<string> = new Set([
  'summary',
  'user',
  'assistant',
  'system',
  'attachment',
  'progress',
  'queue-operation',
  'permission-mode',
  'file-history-snapshot',
  'last-prompt',
])
const arborTypes: ReadonlySet<string> = new Set(['trace.header', ...eventTypes])

/**
 * Which reader a file is for, from its first non-empty line: an Arbor trace starts with its
 * `trace.header` (an event line first, or a line that is not JSON, is also left to the trace
 * reader, which names what is wrong); a Claude Code transcript with one of its entries. Anything
 * else is refused here, saying what kind of line was found but none of its text.
 */
export function detectTraceFormat(file: string): TraceFileFormat {
  const line = firstLine(file)
  if (line === null) return 'arbor-trace'
  let value: unknown
  try {
    value = JSON.parse(line.text)
  } catch {
    return 'arbor-trace'
  }
  const type = isRecord(value) ? value.type : undefined
  if (typeof type === 'string' && arborTypes.has(type)) return 'arbor-trace'
  if (isRecord(value) && (typeof value.sessionId === 'string' || (typeof type === 'string' && claudeCodeTypes.has(type))))
    return 'claude-code'
  // What was found, never the text itself: the file may be anything a caller chose.
  const found = typeof type === 'string' ? 'an object of another type' : isRecord(value) ? 'an object without a type' : 'not an object'
  throw new StoreError(
    `Cannot import ${file}: it is neither an Arbor trace (whose line 1 is a trace.header) nor a Claude Code session: line ${line.number} is ${found}`,
  )
}

/** The first line with something on it (and its 1-based number); null for an empty file. */
function firstLine(file: string): { text: string; number: number } | null {
  let found: { text: string; number: number } | null = null
  readLinesSync(file, (line, number) => {
    if (line.trim() === '') return true
    found = { text: line.replace(/\r$/, ''), number }
    return false
  })
  return found
}
