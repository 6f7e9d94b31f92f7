/** What a drop on the window is: pure, so the rules are tested without a DOM. */
export type DropKind = 'folder' | 'trace' | 'other' | 'none'

export interface DroppedItem {
  name: string
  /** From DataTransferItem.webkitGetAsEntry(); null when the browser does not say. */
  isDirectory: boolean | null
  type: string
}

const tracePattern = /\.(jsonl|ndjson)$/i

export function dropKindOf(item: DroppedItem | undefined): DropKind {
  if (!item) return 'none'
  if (item.isDirectory === true) return 'folder'
  if (tracePattern.test(item.name)) return 'trace'
  // A folder from a browser that cannot say (no entry API): no extension and no type.
  if (item.isDirectory === null && item.type === '' && !item.name.includes('.')) return 'folder'
  return 'other'
}
