import { structuredPatch } from 'diff'
import type {
  ChangeAuthor,
  ChangedFile,
  ChangeScope,
  ChangesView,
  DiffHunk,
  DiffLine,
  FileDiff,
  NetChangeKind,
} from '../trace/change-views'
import type { EventOf } from '../trace/events'
import type { AgentNode } from '../trace/model'
import type { SqliteDatabase } from './database'
import { getFileContent } from './file-contents'
import { getAgents } from './queries'
import { eventColumns, eventFromRow, type EventRow } from './rows'

/**
 * The Changes views' reading of the trace: a scope's `file.change` events (one agent's, its
 * subtree's, or the job's) folded into one net change per file (its first before against its
 * last after, followed through renames), with +/− line counts and unified hunks from the stored
 * contents. Revert (handlers/revert-changes.ts) plans from the same fold.
 */

export type FileChangeEvent = EventOf<'file.change'>

/** Answers stay small: at most this many files, and this many diff lines per file. */
export const maxChangedFiles = 500
export const maxDiffLines = 5000

/** One file's fold over a scope, with the events it came from. */
export interface FileFold {
  /** The worktree it is in, by branch; undefined: the project folder. A path is one file per folder. */
  branch: string | undefined
  path: string
  original_path: string
  /** Every path the file had in the scope (a rename adds one). */
  paths: Set<string>
  bytes_before: number | null
  bytes_after: number | null
  hash_before: string | null
  hash_after: string | null
  events: FileChangeEvent[]
}

/** The job's `file.change` events, oldest first. */
export function jobFileChanges(db: SqliteDatabase, jobId: string): FileChangeEvent[] {
  const rows = db
    .prepare(`SELECT ${eventColumns} FROM events WHERE job_id = ? AND type = 'file.change' ORDER BY seq`)
    .all(jobId) as EventRow[]
  return rows.map(eventFromRow) as FileChangeEvent[]
}

/** The agents a scope holds: all of the job's (no agent), one, or one and its descendants. */
export function scopeAgents(agents: AgentNode[], scope: ChangeScope): Set<string> {
  if (scope.agent_id === undefined) return new Set(agents.map((agent) => agent.id))
  const held = new Set([scope.agent_id])
  if (!scope.subtree) return held
  // Agents are listed in the order they appeared, parents before their children.
  for (const agent of agents) if (agent.parent_id !== null && held.has(agent.parent_id)) held.add(agent.id)
  return held
}

/** Folds changes (oldest first) into one entry per file, keyed by its folder and where the file is now. */
export function foldChanges(changes: FileChangeEvent[]): FileFold[] {
  const byPath = new Map<string, FileFold>()
  for (const event of changes) {
    const { path, from_path, branch } = event.data
    const key = (file: string) => `${branch ?? ''}\0${file}`
    const source = event.data.kind === 'renamed' && from_path !== undefined ? from_path : path
    let fold = byPath.get(key(source))
    if (fold) byPath.delete(key(source))
    else {
      fold = {
        branch,
        path,
        original_path: source,
        paths: new Set([source]),
        bytes_before: event.data.bytes_before,
        hash_before: event.data.hash_before,
        bytes_after: null,
        hash_after: null,
        events: [],
      }
    }
    fold.path = path
    fold.paths.add(path)
    fold.bytes_after = event.data.bytes_after
    fold.hash_after = event.data.hash_after
    fold.events.push(event)
    byPath.set(key(path), fold)
  }
  return [...byPath.values()]
}

export function netKind(fold: FileFold): NetChangeKind {
  const existed = fold.bytes_before !== null || fold.hash_before !== null
  const exists = fold.bytes_after !== null || fold.hash_after !== null
  if (!existed && !exists) return 'unchanged'
  if (!existed) return 'created'
  if (!exists) return 'deleted'
  if (fold.path !== fold.original_path) return 'renamed'
  return fold.hash_before !== null && fold.hash_before === fold.hash_after ? 'unchanged' : 'modified'
}

/** A version's text, or why there is none: `null` for a file that did not exist. */
type Version = { text: string } | { binary: true } | { missing: string } | null

function readVersion(db: SqliteDatabase, hash: string | null, bytes: number | null, side: string): Version {
  if (hash === null && bytes === null) return null
  if (hash === null) return { missing: `its content ${side} was not read` }
  const content = getFileContent(db, hash)
  if (!content) return { missing: `its content ${side} is not stored (${bytes ?? '?'} bytes; over 1 MiB is not kept)` }
  if (content.includes(0)) return { binary: true }
  try {
    return { text: new TextDecoder('utf-8', { fatal: true }).decode(content) }
  } catch {
    return { binary: true }
  }
}

interface Texts {
  before: string
  after: string
}

function textsOf(db: SqliteDatabase, fold: FileFold): Texts | { binary: true } | { missing: string } {
  const before = readVersion(db, fold.hash_before, fold.bytes_before, 'before')
  const after = readVersion(db, fold.hash_after, fold.bytes_after, 'after')
  for (const version of [before, after]) if (version && 'missing' in version) return version
  for (const version of [before, after]) if (version && 'binary' in version) return version
  const text = (version: Version): string => (version && 'text' in version ? version.text : '')
  return { before: text(before), after: text(after) }
}

const authorsOf = (fold: FileFold, labels: Map<string, string>): ChangeAuthor[] =>
  fold.events.map((event) => {
    const concurrent = [...new Set((event.data.concurrent_with ?? []).map((command) => command.agent_id))]
    return {
      agent_id: event.agent_id ?? '',
      label: labels.get(event.agent_id ?? '') ?? event.agent_id ?? 'job',
      tool_call: event.data.by_tool_call,
      tool: event.data.tool,
      seq: event.seq,
      ...(concurrent.length > 0
        ? { concurrent: concurrent.map((agentId) => ({ agent_id: agentId, label: labels.get(agentId) ?? agentId })) }
        : {}),
    }
  })

function patchOf(fold: FileFold, texts: Texts) {
  return structuredPatch(fold.original_path, fold.path, texts.before, texts.after, undefined, undefined, { context: 3 })
}

function describe(db: SqliteDatabase, fold: FileFold, labels: Map<string, string>): { file: ChangedFile; texts: Texts | null } {
  const texts = textsOf(db, fold)
  const file: ChangedFile = {
    ...(fold.branch !== undefined ? { branch: fold.branch } : {}),
    path: fold.path,
    ...(fold.original_path !== fold.path ? { from_path: fold.original_path } : {}),
    kind: netKind(fold),
    kinds: fold.events.map((event) => event.data.kind),
    bytes_before: fold.bytes_before,
    bytes_after: fold.bytes_after,
    hash_before: fold.hash_before,
    hash_after: fold.hash_after,
    added: null,
    removed: null,
    binary: 'binary' in texts,
    ...('missing' in texts ? { content_missing: texts.missing } : {}),
    authors: authorsOf(fold, labels),
  }
  if (!('before' in texts)) return { file, texts: null }
  let added = 0
  let removed = 0
  for (const hunk of patchOf(fold, texts).hunks) {
    for (const line of hunk.lines) {
      if (line.startsWith('+')) added += 1
      else if (line.startsWith('-')) removed += 1
    }
  }
  return { file: { ...file, added, removed }, texts }
}

interface Loaded {
  folds: FileFold[]
  labels: Map<string, string>
}

function load(db: SqliteDatabase, scope: ChangeScope): Loaded {
  const agents = getAgents(db, scope.job_id)
  const held = scopeAgents(agents, scope)
  const changes = jobFileChanges(db, scope.job_id).filter((event) => event.agent_id !== null && held.has(event.agent_id))
  return { folds: foldChanges(changes), labels: new Map(agents.map((agent) => [agent.id, agent.label])) }
}

/**
 * Per agent of the job, how many files its own changes leave changed: the nodes' badges. A file
 * changed in its worktree and again in the project by its merge counts once.
 */
export function changedFileCounts(db: SqliteDatabase, jobId: string): Record<string, number> {
  const byAgent = new Map<string, FileChangeEvent[]>()
  for (const event of jobFileChanges(db, jobId)) {
    if (event.agent_id === null) continue
    const list = byAgent.get(event.agent_id) ?? []
    list.push(event)
    byAgent.set(event.agent_id, list)
  }
  const counts: Record<string, number> = {}
  for (const [agentId, changes] of byAgent) {
    const count = new Set(foldChanges(changes).flatMap((fold) => (netKind(fold) === 'unchanged' ? [] : [fold.path]))).size
    if (count > 0) counts[agentId] = count
  }
  return counts
}

/**
 * A scope's changed files, the project folder's first, then each worktree's (by branch), by path
 * in each, with their +/− counts (unchanged ones left out). With
 * `countsOnly` no file is listed (nor any content read): the badges' refresh on every change.
 */
export function getChanges(db: SqliteDatabase, scope: ChangeScope, countsOnly = false): ChangesView {
  const { folds, labels } = load(db, scope)
  const changed = folds
    .filter((fold) => netKind(fold) !== 'unchanged')
    .sort((a, b) => (a.branch ?? '').localeCompare(b.branch ?? '') || a.path.localeCompare(b.path))
  const listed = countsOnly ? [] : changed.slice(0, maxChangedFiles)
  return {
    files: listed.map((fold) => describe(db, fold, labels).file),
    total: changed.length,
    more: countsOnly ? 0 : changed.length - listed.length,
    by_agent: changedFileCounts(db, scope.job_id),
  }
}

/** One file's diff over a scope (`branch`: in that worktree; none: in the project folder); undefined when the scope did not change that path. */
export function getFileDiff(db: SqliteDatabase, scope: ChangeScope, path: string, branch?: string): FileDiff | undefined {
  const { folds: all, labels } = load(db, scope)
  const folds = all.filter((candidate) => candidate.branch === branch)
  const fold = folds.find((candidate) => candidate.path === path) ?? folds.find((candidate) => candidate.paths.has(path))
  if (!fold) return undefined
  const { file, texts } = describe(db, fold, labels)
  if (!texts) return { file, hunks: [], truncated: false }
  let budget = maxDiffLines
  const hunks: DiffHunk[] = []
  for (const hunk of patchOf(fold, texts).hunks) {
    if (budget <= 0) return { file, hunks, truncated: true }
    let oldLine = hunk.oldStart
    let newLine = hunk.newStart
    const lines: DiffLine[] = []
    for (const line of hunk.lines.slice(0, budget)) {
      if (line.startsWith('\\')) continue // "\ No newline at end of file"
      const text = line.slice(1)
      if (line.startsWith('+')) lines.push({ kind: 'added', text, old_line: null, new_line: newLine++ })
      else if (line.startsWith('-')) lines.push({ kind: 'removed', text, old_line: oldLine++, new_line: null })
      else lines.push({ kind: 'context', text, old_line: oldLine++, new_line: newLine++ })
    }
    budget -= hunk.lines.length
    hunks.push({
      old_start: hunk.oldStart,
      old_lines: hunk.oldLines,
      new_start: hunk.newStart,
      new_lines: hunk.newLines,
      lines,
      tool_call: hunkToolCall(db, fold, lines, all),
    })
  }
  return { file, hunks, truncated: budget < 0 }
}

/**
 * The tool call behind a hunk: the latest change of the file whose own diff adds one of the
 * hunk's added lines (or, for a hunk that only removes, removes one of its lines); the file's
 * last change when none can be told. A merge's hunk is looked for in the same file's changes in
 * the worktree it came from (in `folds`, the scope's), where the child's tool calls made it.
 */
function hunkToolCall(db: SqliteDatabase, fold: FileFold, lines: DiffLine[], folds: FileFold[]): DiffHunk['tool_call'] {
  const wanted = lines.filter((line) => line.kind !== 'context')
  const sign = wanted.some((line) => line.kind === 'added') ? '+' : '-'
  const texts = new Set(wanted.filter((line) => (sign === '+' ? line.kind === 'added' : line.kind === 'removed')).map((line) => line.text))
  const link = (event: FileChangeEvent): DiffHunk['tool_call'] => {
    if (event.data.tool === 'merge') {
      const source = folds.find(
        (candidate) =>
          candidate.branch !== undefined &&
          candidate.branch !== fold.branch &&
          candidate.paths.has(event.data.path) &&
          candidate.events.some((change) => change.agent_id === event.agent_id),
      )
      return source ? hunkToolCall(db, source, lines, []) : null
    }
    return event.agent_id && event.data.by_tool_call
      ? { agent_id: event.agent_id, call_id: event.data.by_tool_call, seq: toolCallSeq(db, event.agent_id, event.data.by_tool_call) }
      : null
  }
  for (const event of [...fold.events].reverse()) {
    const single: FileFold = {
      ...fold,
      original_path: event.data.from_path ?? event.data.path,
      path: event.data.path,
      bytes_before: event.data.bytes_before,
      hash_before: event.data.hash_before,
      bytes_after: event.data.bytes_after,
      hash_after: event.data.hash_after,
    }
    const own = textsOf(db, single)
    if (!('before' in own)) continue
    const touched = patchOf(single, own).hunks.some((hunk) => hunk.lines.some((line) => line[0] === sign && texts.has(line.slice(1))))
    if (touched) return link(event)
  }
  return fold.events.length > 0 ? link(fold.events.at(-1)!) : null
}

/** The seq of an agent's `tool.call` event with this call id (the inspector scrolls to it), or null. */
function toolCallSeq(db: SqliteDatabase, agentId: string, callId: string): number | null {
  const row = db
    .prepare<[string, string], { seq: number }>(
      "SELECT seq FROM events WHERE agent_id = ? AND type = 'tool.call' AND json_extract(data, '$.call_id') = ? ORDER BY seq LIMIT 1",
    )
    .get(agentId, callId)
  return row?.seq ?? null
}
