import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { isRecord, readEntries, type Entry, type SkipCounts } from './entries'

/** One agent's conversation: the main session, an inline sidechain, or a subagent file. */
export interface Transcript {
  /** Stable within the session: `root`, the subagent's agentId, or `sidechain-<first uuid>`. */
  key: string
  /** Claude Code's agentId, when the transcript has one (2.0.x and later). */
  agentId: string | null
  entries: Entry[]
  /** `agent-<id>.meta.json` (2.1.x): agentType, description, and what newer versions add. */
  meta: TranscriptMeta
}

export interface TranscriptMeta {
  agentType?: string
  description?: string
  toolUseId?: string
  parentAgentId?: string
}

export interface SessionTranscripts {
  root: Transcript
  /** Every other transcript found for the session, in the order found. */
  others: Transcript[]
}

/**
 * Reads a session and every subagent transcript Claude Code wrote for it, in the three layouts
 * it has used: inline `isSidechain` lines in the main file (1.0.x), `agent-*.jsonl` beside the
 * session file whose `sessionId` is the session's (2.0.x), and `<session>/subagents/agent-*.jsonl`
 * with an optional `.meta.json` (2.1.x). Linking them to the calls that spawned them is links.ts.
 */
export function readSessionTranscripts(file: string, skipped: SkipCounts): SessionTranscripts {
  const entries = readEntries(file, skipped)
  const sessionId = entries.find((entry) => entry.sessionId !== null)?.sessionId ?? null
  const root: Transcript = { key: 'root', agentId: null, entries: entries.filter((entry) => !entry.isSidechain), meta: {} }
  const others = inlineSidechains(entries.filter((entry) => entry.isSidechain))
  const seen = new Set(others.map((transcript) => transcript.key))
  const add = (transcript: Transcript): void => {
    if (seen.has(transcript.key)) return
    seen.add(transcript.key)
    others.push(transcript)
  }
  const folder = path.dirname(file)
  const stem = path.basename(file, '.jsonl')
  for (const agentFile of agentFiles(path.join(folder, stem, 'subagents'))) add(readAgentFile(agentFile, skipped))
  for (const agentFile of agentFiles(folder)) {
    if (path.resolve(agentFile) === path.resolve(file)) continue
    const own: SkipCounts = {}
    const transcript = readAgentFile(agentFile, own)
    // A beside file belongs to this session only if it says so (other sessions' agents share the folder).
    if (sessionId === null || transcript.entries[0]?.sessionId !== sessionId) continue
    add(transcript)
    for (const [kind, count] of Object.entries(own)) skipped[kind] = (skipped[kind] ?? 0) + count
  }
  return { root, others }
}

/** Sidechain lines of the main file, grouped into chains: each starts at `parentUuid: null` and follows its uuids. */
function inlineSidechains(entries: Entry[]): Transcript[] {
  const chains: Transcript[] = []
  const chainOf = new Map<string, Transcript>()
  for (const entry of entries) {
    let chain = entry.parentUuid !== null ? chainOf.get(entry.parentUuid) : undefined
    if (!chain && entry.agentId !== null) chain = chains.find((other) => other.agentId === entry.agentId)
    if (!chain) {
      chain = { key: entry.agentId ?? `sidechain-${entry.uuid ?? entry.line}`, agentId: entry.agentId, entries: [], meta: {} }
      chains.push(chain)
    }
    chain.entries.push(entry)
    if (entry.uuid !== null) chainOf.set(entry.uuid, chain)
  }
  return chains
}

/** `agent-*.jsonl` files directly in `folder`, sorted by name; none when it does not exist. */
function agentFiles(folder: string): string[] {
  let names: string[]
  try {
    names = readdirSync(folder)
  } catch {
    return []
  }
  return names
    .filter((name) => name.startsWith('agent-') && name.endsWith('.jsonl'))
    .sort()
    .map((name) => path.join(folder, name))
}

function readAgentFile(file: string, skipped: SkipCounts): Transcript {
  const entries = readEntries(file, skipped)
  const agentId = entries.find((entry) => entry.agentId !== null)?.agentId ?? path.basename(file, '.jsonl').slice('agent-'.length)
  return { key: agentId, agentId, entries, meta: readMeta(file.replace(/\.jsonl$/, '.meta.json')) }
}

function readMeta(file: string): TranscriptMeta {
  let value: unknown
  try {
    value = JSON.parse(readFileSync(file, 'utf8'))
  } catch {
    return {}
  }
  if (!isRecord(value)) return {}
  const meta: TranscriptMeta = {}
  for (const key of ['agentType', 'description', 'toolUseId', 'parentAgentId'] as const) {
    if (typeof value[key] === 'string') meta[key] = value[key]
  }
  return meta
}
