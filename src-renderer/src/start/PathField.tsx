import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'
import { moveHighlight, splitFolder, tabCompletion } from './path-completion'

const completionDelayMs = 60

/**
 * The browser's way to open a folder: a path field completed from the engine's file system
 * (completePath). ↑/↓ pick a suggestion, Tab or Enter takes it, Enter on the typed path opens
 * it; a click picks too. Errors show under the field.
 */
export function PathField({ onOpen }: { onOpen: (path: string) => Promise<string | null> }) {
  const [value, setValue] = useState('')
  const [entries, setEntries] = useState<string[]>([])
  const [highlighted, setHighlighted] = useState(-1)
  const [focused, setFocused] = useState(false)
  const [dismissed, setDismissed] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const input = useRef<HTMLInputElement>(null)
  const request = useRef(0)
  const list = useRef<HTMLDivElement>(null)

  // Ask for completions as the user types; only the newest answer counts.
  useEffect(() => {
    const seq = ++request.current
    const timer = setTimeout(() => {
      api()
        .completePath({ prefix: value })
        .then(({ entries: found }) => {
          if (seq !== request.current) return
          setEntries(found.filter((entry) => entry !== value))
          setHighlighted(-1)
        })
        .catch(() => seq === request.current && setEntries([]))
    }, completionDelayMs)
    return () => clearTimeout(timer)
  }, [value])

  // Keep the highlighted row in view.
  useEffect(() => {
    list.current?.querySelector<HTMLElement>('[data-highlighted="true"]')?.scrollIntoView({ block: 'nearest' })
  }, [highlighted])

  const take = (entry: string) => {
    setValue(entry)
    setError(null)
    setDismissed(false)
    input.current?.focus()
  }
  const open = async () => {
    const path = value.trim()
    if (!path || busy) return
    setBusy(true)
    setError(null)
    try {
      const failed = await onOpen(path)
      if (failed) setError(failed)
    } catch (caught) {
      setError(errorText(caught))
    } finally {
      setBusy(false)
    }
  }

  const showList = focused && !dismissed && entries.length > 0
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      if (entries.length === 0) return
      event.preventDefault()
      setDismissed(false)
      setHighlighted(moveHighlight(highlighted, entries.length, event.key === 'ArrowDown' ? 1 : -1))
    } else if (event.key === 'Tab' && !event.shiftKey && showList) {
      const completed = tabCompletion(value, entries, highlighted)
      if (completed === null) return
      event.preventDefault()
      take(completed)
    } else if (event.key === 'Enter') {
      event.preventDefault()
      if (showList && highlighted >= 0) take(entries[highlighted]!)
      else void open()
    } else if (event.key === 'Escape') {
      if (showList) {
        event.preventDefault()
        setDismissed(true)
      }
    }
  }

  return (
    <div className="path-field">
      <label className="path-field__label" htmlFor="open-path">
        Open a folder
      </label>
      <div className="path-field__anchor">
        <div className={`path-field__box${error ? ' error' : ''}${showList ? ' open' : ''}`}>
          <span className="path-field__icon" aria-hidden>
            ⌁
          </span>
          <input
            ref={input}
            id="open-path"
            className="path-field__input"
            data-testid="open-path"
            placeholder="Type a folder path, e.g. ~/code/my-project"
            spellCheck={false}
            autoComplete="off"
            autoCapitalize="off"
            role="combobox"
            aria-expanded={showList}
            aria-controls="path-suggestions"
            aria-autocomplete="list"
            value={value}
            onChange={(event) => {
              setValue(event.target.value)
              setError(null)
              setDismissed(false)
            }}
            onKeyDown={onKeyDown}
            onFocus={() => setFocused(true)}
            onBlur={() => setFocused(false)}
          />
          <button
            className="button primary path-field__open"
            data-testid="open-path-submit"
            disabled={!value.trim() || busy}
            onClick={() => void open()}
          >
            {busy ? 'Opening…' : 'Open'}
          </button>
        </div>
        {showList && (
          <div className="path-suggestions" id="path-suggestions" role="listbox" ref={list} data-testid="path-suggestions">
            {entries.map((entry, index) => {
              const { parent, name } = splitFolder(entry)
              return (
                <div
                  key={entry}
                  role="option"
                  aria-selected={index === highlighted}
                  className={`path-suggestion${index === highlighted ? ' highlighted' : ''}`}
                  data-testid="path-suggestion"
                  data-path={entry}
                  data-highlighted={index === highlighted ? 'true' : undefined}
                  // Before the input's blur, so the list is still there to take the click.
                  onMouseDown={(event) => {
                    event.preventDefault()
                    take(entry)
                  }}
                  onMouseEnter={() => setHighlighted(index)}
                >
                  <span className="path-suggestion__icon" aria-hidden>
                    ▸
                  </span>
                  <span className="path-suggestion__path">
                    <span className="path-suggestion__parent">{parent}</span>
                    <span className="path-suggestion__name">{name}</span>
                  </span>
                </div>
              )
            })}
            <div className="path-suggestions__hint">
              <kbd>↑</kbd>
              <kbd>↓</kbd> choose · <kbd>Tab</kbd> or <kbd>Enter</kbd> complete · <kbd>Enter</kbd> on a path opens it
            </div>
          </div>
        )}
      </div>
      {error && (
        <div className="field-error" data-testid="open-path-error" role="alert">
          {error}
        </div>
      )}
    </div>
  )
}
