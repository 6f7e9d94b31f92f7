import type { FileChangeKind } from './file-changes'

/**
 * What the Changes views show (the API's getChanges, getFileDiff and revertChanges answers, and
 * `arbor changes`): plain data, no zod, so the renderer imports it. Built in main by
 * store/changes.ts from the trace's `file.change` events.
 */

/** Whose changes: one agent's own, its whole subtree's, or (no agent) the job's. */
export interface ChangeScope {
  job_id: string
  agent_id?: string
  subtree?: boolean
}

/** The net kind of one file over a scope: its first before against its last after. */
export type NetChangeKind = FileChangeKind | 'unchanged'

/** One agent or tool call that changed a file, for the attribution and the link to the inspector. */
export interface ChangeAuthor {
  agent_id: string
  label: string
  /** The `tool.call` call_id; null when no tool call of the agent made it (a revert). */
  tool_call: string | null
  tool: string
  seq: number
  /** Other agents whose commands ran in the same folder while this change's command did: it may be theirs. */
  concurrent?: { agent_id: string; label: string }[]
}

/** One file's net change over a scope. */
export interface ChangedFile {
  /** The git worktree it is in, by branch (an isolated agent's work); absent: the project folder. */
  branch?: string
  /** Where it is now (after the scope's last change). */
  path: string
  /** Where it was before the scope's first change, when that differs (renamed). */
  from_path?: string
  kind: NetChangeKind
  /** The kinds of the single changes, in order (`modified`, `modified`, `renamed`…). */
  kinds: FileChangeKind[]
  bytes_before: number | null
  bytes_after: number | null
  hash_before: string | null
  hash_after: string | null
  /** Lines added and removed; null when not counted (binary, or a version not stored). */
  added: number | null
  removed: number | null
  binary: boolean
  /** Why the diff cannot be shown: a version over 1 MiB or not read. Absent when both are stored. */
  content_missing?: string
  authors: ChangeAuthor[]
}

export interface ChangesView {
  /** Empty when only the counts were asked for (`counts_only`). */
  files: ChangedFile[]
  /** How many files the scope changed (listed or not). */
  total: number
  /** Files left out past the answer's cap. */
  more: number
  /** Changed files (net, not unchanged) per agent of the whole job, its own changes only: the nodes' badges. */
  by_agent: Record<string, number>
}

export interface DiffLine {
  kind: 'context' | 'added' | 'removed'
  text: string
  /** Line numbers in the before and after versions (null on the side the line is not in). */
  old_line: number | null
  new_line: number | null
}

export interface DiffHunk {
  old_start: number
  old_lines: number
  new_start: number
  new_lines: number
  lines: DiffLine[]
  /** The tool call (its agent, and its `tool.call` event's seq when stored) behind these lines, for the inspector link. */
  tool_call: { agent_id: string; call_id: string; seq: number | null } | null
}

export interface FileDiff {
  file: ChangedFile
  /** Unified hunks; empty for a binary file or missing content (then `binary` or `content_missing` says why). */
  hunks: DiffHunk[]
  /** True when the hunks were cut at the answer's cap. */
  truncated: boolean
}

/** Why a revert was refused, and what is in the way. */
export interface RevertBlock {
  path: string
  /** `concurrent`: another agent's command ran in the folder while the one that changed it did, so the change may be that agent's. */
  reason: 'later_change' | 'disk_differs' | 'content_missing' | 'running' | 'worktree' | 'concurrent'
  message: string
  /** The later change in the way: whose, for its diff (getFileDiff with this agent). */
  agent_id?: string
  label?: string
}

/** The agents whose commands ran beside a command that changed the file (its authors' `concurrent`), each once. */
export const besideLabels = (file: ChangedFile): string[] => [
  ...new Set(file.authors.flatMap((author) => (author.concurrent ?? []).map((other) => other.label))),
]

export type RevertResult = { reverted: true; files: string[] } | { reverted: false; message: string; blocks: RevertBlock[] }

/** `@@ -a,b +c,d @@` as diff and git print it: an empty side starts at the line before (jsdiff's formatPatch does the same). */
export const hunkHeader = (hunk: DiffHunk): string => {
  const start = (from: number, count: number) => (count === 0 ? from - 1 : from)
  return `@@ -${start(hunk.old_start, hunk.old_lines)},${hunk.old_lines} +${start(hunk.new_start, hunk.new_lines)},${hunk.new_lines} @@`
}
