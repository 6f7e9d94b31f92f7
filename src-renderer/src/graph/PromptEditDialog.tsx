import { useLayoutEffect, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { maxSpawnPrompt } from '@core/api/job-limits'
import { useArbor, type ArborState } from '../store'
import { errorText } from '../store/error-text'
import type { NodeAnchor } from '../store/types'
import { clampToWindow } from './NodeMenu'

function selectEdit(state: ArborState) {
  const anchor = state.promptEdit
  const agent = anchor ? state.tree.agents[anchor.agentId] : undefined
  return { anchor, found: agent !== undefined, label: agent?.label ?? '', task: agent?.task ?? '', status: agent?.status }
}

/**
 * The prompt of a held or queued spawn, to change before it starts (the node menu's "Edit
 * prompt…"): prefilled with the prompt its parent wrote, or the last edit. Save sends it (API
 * editSpawn) and closes; an error stays in the dialog. Escape or Cancel closes it unchanged.
 */
export function PromptEditDialog() {
  const { anchor, found, label, task, status } = useArbor(useShallow(selectEdit))
  if (!anchor || !found) return null
  return <OpenDialog key={anchor.agentId} anchor={anchor} label={label} prompt={task} waiting={status === 'held' || status === 'queued'} />
}

function OpenDialog({ anchor, label, prompt, waiting }: { anchor: NodeAnchor; label: string; prompt: string; waiting: boolean }) {
  const dialog = useRef<HTMLFormElement>(null)
  const [text, setText] = useState(prompt)
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const [place, setPlace] = useState({ left: anchor.x, top: anchor.y })
  useLayoutEffect(() => {
    const box = dialog.current?.getBoundingClientRect()
    if (box) setPlace(clampToWindow(anchor.x, anchor.y, box.width, box.height))
  }, [anchor.x, anchor.y])
  const close = () => useArbor.getState().openPromptEdit(null)
  const empty = text.trim().length === 0
  const save = async () => {
    if (empty || saving || !waiting) return
    setSaving(true)
    setError(null)
    try {
      await useArbor.getState().editSpawn(anchor.agentId, text)
      close()
    } catch (failure) {
      setError(errorText(failure))
      setSaving(false)
    }
  }

  return (
    <form
      ref={dialog}
      className="prompt-edit"
      role="dialog"
      aria-modal="true"
      aria-labelledby="prompt-edit-title"
      data-testid="prompt-edit"
      data-agent-id={anchor.agentId}
      style={{ left: place.left, top: place.top }}
      onSubmit={(event) => {
        event.preventDefault()
        void save()
      }}
      onKeyDown={(event) => {
        if (event.key === 'Escape') {
          event.preventDefault()
          event.stopPropagation()
          close()
        } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
          event.preventDefault()
          void save()
        }
      }}
    >
      <div className="prompt-edit__title" id="prompt-edit-title">
        Edit the prompt of <strong>{label}</strong>
      </div>
      <div className="muted small">It has not started: it will start with this prompt instead of its parent’s.</div>
      <textarea
        className="input"
        data-testid="prompt-edit-input"
        aria-label={`Prompt of ${label}`}
        rows={8}
        maxLength={maxSpawnPrompt}
        autoFocus
        value={text}
        onChange={(event) => setText(event.target.value)}
      />
      {!waiting && (
        <div className="prompt-edit__error" role="alert" data-testid="prompt-edit-error">
          {label} has started (or ended): its prompt can no longer be edited.
        </div>
      )}
      {waiting && error && (
        <div className="prompt-edit__error" role="alert" data-testid="prompt-edit-error">
          {error}
        </div>
      )}
      {waiting && !error && empty && <div className="prompt-edit__error">The prompt is empty.</div>}
      <div className="prompt-edit__actions">
        <span className="muted small">
          {text.length.toLocaleString()} / {maxSpawnPrompt.toLocaleString()} · Ctrl/Cmd-Enter saves
        </span>
        <button className="button" type="button" data-testid="prompt-edit-cancel" onClick={close}>
          Cancel
        </button>
        <button className="button primary" type="submit" data-testid="prompt-edit-save" disabled={empty || saving || !waiting}>
          {saving ? 'Saving…' : 'Save'}
        </button>
      </div>
    </form>
  )
}
