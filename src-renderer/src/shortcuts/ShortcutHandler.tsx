import { useEffect } from 'react'
import { useArbor } from '../store'
import { shortcutFor } from './keymap'
import { runShortcut } from './run-shortcut'

/** Listens for the project view's keyboard shortcuts (keymap.ts); renders nothing. */
export function ShortcutHandler() {
  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.isComposing) return
      const state = useArbor.getState()
      // A dialog, the kill confirmation or a node's menu has the keyboard.
      if (state.newJobOpen || state.settingsOpen || state.confirmKillId !== null) return
      if (state.nodeMenu !== null || state.promptEdit !== null || state.budgetEdit !== null) return
      if (event.key === 'Escape' && state.shortcutsOpen) {
        state.toggleShortcuts(false)
        return
      }
      const target = event.target instanceof HTMLElement ? event.target : null
      const action = shortcutFor({
        key: event.key,
        ctrlKey: event.ctrlKey,
        metaKey: event.metaKey,
        altKey: event.altKey,
        shiftKey: event.shiftKey,
        repeat: event.repeat,
        target: target && { tagName: target.tagName, type: (target as HTMLInputElement).type, isContentEditable: target.isContentEditable },
      })
      if (!action) return
      event.preventDefault()
      runShortcut(action)
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [])
  return null
}
