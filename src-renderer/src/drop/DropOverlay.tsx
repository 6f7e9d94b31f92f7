import { useEffect, useRef, useState } from 'react'
import { useArbor } from '../store'
import { transport } from '../store/api-ref'
import { dropKindOf, type DroppedItem } from './drop-target'

const hasFiles = (event: DragEvent): boolean => event.dataTransfer?.types.includes('Files') ?? false

function firstItem(transfer: DataTransfer): { item: DroppedItem; file: File } | null {
  const entryItem = transfer.items?.[0]
  const file = transfer.files[0] ?? entryItem?.getAsFile() ?? null
  if (!file) return null
  const entry = entryItem?.webkitGetAsEntry?.() ?? null
  return { file, item: { name: file.name, type: file.type, isDirectory: entry ? entry.isDirectory : null } }
}

/**
 * Files dragged onto the window: a folder opens as the project (desktop only: a browser cannot
 * see the dropped folder's path), a .jsonl trace is imported and its job shown. An overlay says
 * what a drop will do while the user drags.
 */
export function DropOverlay() {
  const desktop = transport().kind === 'electron'
  const [dragging, setDragging] = useState(false)
  const depth = useRef(0)

  useEffect(() => {
    const onEnter = (event: DragEvent) => {
      if (!hasFiles(event)) return
      event.preventDefault()
      depth.current += 1
      setDragging(true)
    }
    const onOver = (event: DragEvent) => {
      if (!hasFiles(event)) return
      // Without this the browser (or Electron) opens the file itself.
      event.preventDefault()
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy'
    }
    const onLeave = (event: DragEvent) => {
      if (!hasFiles(event)) return
      depth.current = Math.max(0, depth.current - 1)
      if (depth.current === 0) setDragging(false)
    }
    const onDrop = (event: DragEvent) => {
      if (!hasFiles(event)) return
      event.preventDefault()
      depth.current = 0
      setDragging(false)
      const dropped = event.dataTransfer ? firstItem(event.dataTransfer) : null
      if (dropped) void handleDrop(dropped.file, dropped.item, desktop)
    }
    window.addEventListener('dragenter', onEnter)
    window.addEventListener('dragover', onOver)
    window.addEventListener('dragleave', onLeave)
    window.addEventListener('drop', onDrop)
    return () => {
      window.removeEventListener('dragenter', onEnter)
      window.removeEventListener('dragover', onOver)
      window.removeEventListener('dragleave', onLeave)
      window.removeEventListener('drop', onDrop)
    }
  }, [desktop])

  if (!dragging) return null
  return (
    <div className="drop-overlay" data-testid="drop-overlay">
      <div className="drop-overlay__card">
        <div className="drop-overlay__icon" aria-hidden>
          ⤓
        </div>
        <div className="drop-overlay__title">{desktop ? 'Drop to open' : 'Drop a trace to import it'}</div>
        <ul className="drop-overlay__lines">
          {desktop && (
            <li>
              <strong>A folder</strong> opens as the project
            </li>
          )}
          <li>
            <strong>A .jsonl trace</strong> is imported read-only and shown
          </li>
          {!desktop && (
            <li className="muted" data-testid="drop-no-folders">
              Folders cannot be opened by dropping them in a browser: type the path on the start screen.
            </li>
          )}
        </ul>
      </div>
    </div>
  )
}

async function handleDrop(file: File, item: DroppedItem, desktop: boolean): Promise<void> {
  const state = useArbor.getState()
  const kind = dropKindOf(item)
  if (kind === 'folder') {
    if (!desktop) {
      state.notify('error', 'A browser cannot open a dropped folder: type its path on the start screen (Projects).')
      return
    }
    const path = transport().pathForFile(file)
    if (!path) return state.notify('error', `Could not tell where ${file.name} is on disk.`)
    const failed = await state.openFolder(path)
    if (failed) state.notify('error', `Could not open ${path}: ${failed}`)
    return
  }
  if (kind === 'trace') {
    const failed = await state.importTrace(file)
    // On success the job simply shows (importTrace says when it was there already).
    if (failed) state.notify('error', `Could not import ${file.name}: ${failed}`)
    return
  }
  state.notify('error', `${file.name}: drop ${desktop ? 'a folder or ' : ''}a .jsonl trace.`)
}
