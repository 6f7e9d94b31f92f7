import { readLinesSync } from '../read-lines'

/**
 * One line of a Claude Code transcript (`~/.claude/projects/<slug>/<session>.jsonl`), with the
 * fields the import reads. Everything else on the line is ignored; see docs/claude-code-import.md.
 */
export interface Entry {
  /** 1-based line of its file, for messages. */
  line: number
  type: string
  uuid: string | null
  parentUuid: string | null
  isSidechain: boolean
  sessionId: string | null
  agentId: string | null
  timestamp: string | null
  cwd: string | null
  version: string | null
  message: EntryMessage | null
  /** The tool's own structured result on a `tool_result` line (string or object). */
  toolUseResult: unknown
}

export interface EntryMessage {
  id: string | null
  role: string | null
  model: string | null
  content: string | ContentBlock[]
  stop_reason: string | null
  usage: Record<string, unknown> | null
}

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: unknown; is_error: boolean }
  | { type: 'other'; kind: string }

/** Entry types that carry the conversation; every other type is skipped and counted. */
const conversationTypes: ReadonlySet<string> = new Set(['user', 'assistant'])

/** Skipped lines by entry type (`malformed` for a line that is not a JSON object). */
export type SkipCounts = Record<string, number>

const countSkip = (skipped: SkipCounts, kind: string): void => {
  skipped[kind] = (skipped[kind] ?? 0) + 1
}

/**
 * Reads a transcript file: the user and assistant lines as entries; any other line is counted
 * in `skipped` by its type (a line that is not a JSON object as `malformed`), never fatal.
 */
export function readEntries(file: string, skipped: SkipCounts): Entry[] {
  const entries: Entry[] = []
  let line = 0
  readLinesSync(file, (raw) => {
    line++
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (text.trim() === '') return
    const entry = parseEntry(text, line)
    if (typeof entry === 'string') countSkip(skipped, entry)
    else entries.push(entry)
  })
  return entries
}

/** An entry, or the kind it is skipped as. */
function parseEntry(text: string, line: number): Entry | string {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return 'malformed'
  }
  if (!isRecord(value)) return 'malformed'
  const type = typeof value.type === 'string' ? value.type : 'untyped'
  if (!conversationTypes.has(type)) return type
  const message = messageOf(value.message)
  if (!message) return 'malformed'
  return {
    line,
    type,
    uuid: str(value.uuid),
    parentUuid: str(value.parentUuid),
    isSidechain: value.isSidechain === true,
    sessionId: str(value.sessionId),
    agentId: str(value.agentId),
    timestamp: validTime(value.timestamp),
    cwd: str(value.cwd),
    version: str(value.version),
    message,
    toolUseResult: value.toolUseResult,
  }
}

function messageOf(value: unknown): EntryMessage | null {
  if (!isRecord(value)) return null
  const content = typeof value.content === 'string' ? value.content : Array.isArray(value.content) ? value.content.map(blockOf) : null
  if (content === null) return null
  return {
    id: str(value.id),
    role: str(value.role),
    model: str(value.model),
    content,
    stop_reason: str(value.stop_reason),
    usage: isRecord(value.usage) ? value.usage : null,
  }
}

function blockOf(value: unknown): ContentBlock {
  if (!isRecord(value)) return { type: 'other', kind: 'malformed' }
  if (value.type === 'text' && typeof value.text === 'string') return { type: 'text', text: value.text }
  if (value.type === 'tool_use' && typeof value.id === 'string' && typeof value.name === 'string') {
    return { type: 'tool_use', id: value.id, name: value.name, input: isRecord(value.input) ? value.input : {} }
  }
  if (value.type === 'tool_result' && typeof value.tool_use_id === 'string') {
    return { type: 'tool_result', tool_use_id: value.tool_use_id, content: value.content, is_error: value.is_error === true }
  }
  return { type: 'other', kind: typeof value.type === 'string' ? value.type : 'malformed' }
}

/** The text of a message's content: a string, or its text blocks joined. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content
    .map((block: unknown) => (isRecord(block) && block.type === 'text' && typeof block.text === 'string' ? block.text : ''))
    .filter((text) => text !== '')
    .join('\n')
}

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value)
const str = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const validTime = (value: unknown): string | null => (typeof value === 'string' && Number.isFinite(Date.parse(value)) ? value : null)
