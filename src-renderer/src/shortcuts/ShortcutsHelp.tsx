import { useArbor, type ArborState } from '../store'
import { shortcuts } from './keymap'

const selectOpen = (state: ArborState) => state.shortcutsOpen
const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform)

/** The `?` overlay: every shortcut of keymap.ts. */
export function ShortcutsHelp() {
  const open = useArbor(selectOpen)
  if (!open) return null
  const close = () => useArbor.getState().toggleShortcuts(false)
  return (
    <div className="overlay-backdrop" onMouseDown={close}>
      <div
        className="shortcuts-help"
        role="dialog"
        aria-label="Keyboard shortcuts"
        data-testid="shortcuts-help"
        onMouseDown={(event) => event.stopPropagation()}
      >
        <header className="shortcuts-help__head">
          <span>Keyboard shortcuts</span>
          <button className="icon-button" aria-label="Close" onClick={close}>
            ×
          </button>
        </header>
        <dl className="shortcuts-help__list">
          {shortcuts.map((shortcut) => (
            <div className="shortcuts-help__row" key={shortcut.action} data-action={shortcut.action}>
              <dt>
                {shortcut.keys.map((key) => (
                  <kbd key={key}>{key}</kbd>
                ))}
                {shortcut.action === 'newJob' && (
                  <>
                    <span className="shortcuts-help__or">or</span>
                    <kbd>{isMac ? '⌘' : 'Ctrl'}</kbd>
                    <kbd>N</kbd>
                  </>
                )}
              </dt>
              <dd>{shortcut.description}</dd>
            </div>
          ))}
        </dl>
        <footer className="shortcuts-help__foot">Shortcuts are off while you type in a field. Esc closes this.</footer>
      </div>
    </div>
  )
}
