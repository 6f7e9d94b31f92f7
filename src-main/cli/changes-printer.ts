import { besideLabels, hunkHeader, type ChangedFile, type FileDiff } from '../core/trace/change-views'
import type { WorktreeView } from '../core/trace/worktree-view'
import { printable } from './printable'

/**
 * `arbor changes`'s text: one line per changed file (its net kind as a letter, its path, +/−,
 * who changed it), and with --diff each file's unified diff, as the Changes tab shows them.
 * Paths and diff lines come from files agents wrote: printed through `printable`.
 */

const letters: Record<ChangedFile['kind'], string> = { created: 'A', modified: 'M', deleted: 'D', renamed: 'R', unchanged: '=' }

export function changeCounts(file: ChangedFile): string {
  if (file.binary) return 'binary'
  if (file.added === null || file.removed === null) return 'not stored'
  return `+${file.added} −${file.removed}`
}

export function changedFileLine(file: ChangedFile): string {
  const path = file.from_path ? `${file.from_path} → ${file.path}` : file.path
  const authors = [
    ...new Set(file.authors.map((author) => `${author.label} (${author.agent_id})${author.tool === 'merge' ? ' via merge' : ''}`)),
  ].join(', ')
  const where = file.branch ? `  in worktree ${printable(file.branch)}` : ''
  const beside = besideLabels(file)
  const maybe = beside.length > 0 ? `  (may be ${printable(beside.join(' or '))}'s: a command of theirs ran at the same time)` : ''
  return `${letters[file.kind]}  ${printable(path)}  ${changeCounts(file)}  by ${printable(authors)}${where}${maybe}`
}

export function changesSummary(files: ChangedFile[], more: number): string {
  const added = files.reduce((sum, file) => sum + (file.added ?? 0), 0)
  const removed = files.reduce((sum, file) => sum + (file.removed ?? 0), 0)
  const count = files.length + more
  return `${count} ${count === 1 ? 'file' : 'files'} changed, +${added} −${removed}${more > 0 ? ` (${more} not listed)` : ''}`
}

export function unifiedDiff(diff: FileDiff): string {
  const { file } = diff
  const header = [
    `--- ${file.hash_before === null && file.bytes_before === null ? '/dev/null' : `a/${printable(file.from_path ?? file.path)}`}`,
  ]
  header.push(`+++ ${file.hash_after === null && file.bytes_after === null ? '/dev/null' : `b/${printable(file.path)}`}`)
  if (file.binary) return `${header.join('\n')}\nbinary file, not diffed`
  if (file.content_missing) return `${header.join('\n')}\n${file.content_missing}`
  const lines = header
  for (const hunk of diff.hunks) {
    const link = hunk.tool_call ? ` (tool call ${hunk.tool_call.call_id})` : ''
    lines.push(`${hunkHeader(hunk)}${link}`)
    for (const line of hunk.lines) lines.push(`${line.kind === 'added' ? '+' : line.kind === 'removed' ? '-' : ' '}${printable(line.text)}`)
  }
  if (diff.truncated) lines.push('… (diff cut short)')
  return lines.join('\n')
}

const branchStates: Record<WorktreeView['state'], string> = {
  created: 'working',
  committed: 'committed, not merged',
  merged: 'merged',
  conflict: 'conflicts with its parent, not merged',
  discarded: 'discarded',
}

/** A worktree child's branch: its state, its files, and whether its worktree is still on disk. */
export function branchLine(view: WorktreeView, label: string): string {
  const files = view.files.length === 1 ? '1 file' : `${view.files.length} files`
  const worktree = view.present ? 'worktree kept' : 'worktree removed'
  return `⎇  ${printable(view.branch)}  ${printable(label)} (${view.agent_id})  ${branchStates[view.state]}, ${files}, ${worktree}`
}
