/** Pure helpers of the start screen: path completion, recent-project times. */

/** The longest string every entry starts with. */
export function commonPrefix(entries: readonly string[]): string {
  if (entries.length === 0) return ''
  let prefix = entries[0]!
  for (const entry of entries.slice(1)) {
    let length = 0
    while (length < prefix.length && length < entry.length && prefix[length] === entry[length]) length++
    prefix = prefix.slice(0, length)
    if (!prefix) break
  }
  return prefix
}

/**
 * What Tab puts in the field: the highlighted suggestion; else, the part all suggestions share
 * when it is longer than what was typed; else the first suggestion. Null: nothing to complete.
 */
export function tabCompletion(value: string, entries: readonly string[], highlighted: number): string | null {
  if (entries.length === 0) return null
  if (highlighted >= 0 && highlighted < entries.length) return entries[highlighted]!
  const shared = commonPrefix(entries)
  if (shared.length > value.length && shared.startsWith(value)) return shared
  return entries[0] === value ? null : entries[0]!
}

/** The next highlighted row for ArrowDown (+1) / ArrowUp (-1); -1 is "none", and it wraps around. */
export function moveHighlight(current: number, count: number, delta: 1 | -1): number {
  if (count === 0) return -1
  if (current < 0) return delta === 1 ? 0 : count - 1
  const next = current + delta
  return next < 0 || next >= count ? -1 : next
}

/** A folder path split for display: the parent (dimmed) and the folder's own name. */
export function splitFolder(path: string): { parent: string; name: string } {
  const trimmed = path.replace(/[\\/]+$/, '')
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'))
  if (cut < 0) return { parent: '', name: trimmed }
  return { parent: trimmed.slice(0, cut + 1), name: trimmed.slice(cut + 1) + path.slice(trimmed.length) }
}

/** "just now", "5 min ago", "3 h ago", "yesterday", "4 days ago", then the date. */
export function relativeTime(iso: string, now: number): string {
  const then = Date.parse(iso)
  if (Number.isNaN(then)) return ''
  const seconds = Math.max(0, (now - then) / 1000)
  if (seconds < 60) return 'just now'
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`
  const days = Math.floor(seconds / 86_400)
  if (days === 1) return 'yesterday'
  if (days < 30) return `${days} days ago`
  return new Date(then).toISOString().slice(0, 10)
}
