import type { RevertResult } from '@core/trace/change-views'
import { useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'

function selectRevert(state: ArborState) {
  const agentId = state.revertDialog?.agentId ?? null
  const agent = agentId ? state.tree.agents[agentId] : undefined
  return { agentId, label: agent?.label ?? '', hasChildren: agentId ? (state.tree.children[agentId]?.length ?? 0) > 0 : false }
}

/**
 * The node menu's Revert changes…: asks, with its subtree or not, then puts the files back (API
 * revertChanges). A refusal is shown as Arbor gave it, each later change in the way with a link
 * to its diff (that agent's Changes tab at the file).
 */
export function RevertDialog() {
  const { agentId, label, hasChildren } = useArbor(useShallow(selectRevert))
  if (!agentId) return null
  return <OpenRevert key={agentId} agentId={agentId} label={label} hasChildren={hasChildren} />
}

function OpenRevert({ agentId, label, hasChildren }: { agentId: string; label: string; hasChildren: boolean }) {
  const [subtree, setSubtree] = useState(hasChildren)
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<RevertResult | null>(null)
  const [error, setError] = useState<string | null>(null)
  const close = () => useArbor.getState().openRevert(null)
  const revert = async () => {
    setBusy(true)
    try {
      const answer = await api().revertChanges({ agent_id: agentId, subtree })
      setResult(answer)
      if (answer.reverted) {
        useArbor.getState().notify('info', `Reverted ${answer.files.length} ${answer.files.length === 1 ? 'file' : 'files'} of ${label}`)
        close()
      }
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setBusy(false)
    }
  }
  const refused = result && !result.reverted ? result : null
  return (
    <div
      className="revert-dialog"
      role="dialog"
      aria-modal="true"
      aria-labelledby="revert-title"
      data-testid="revert-dialog"
      data-agent-id={agentId}
    >
      <div className="prompt-edit__title" id="revert-title">
        Revert the file changes of <strong>{label}</strong>
      </div>
      <p className="revert-dialog__text">
        Every file it changed goes back to what it was before: created files are removed, deleted ones come back, renames are undone.
        Nothing is written unless all of them can be.
      </p>
      {hasChildren && (
        <label className="changes__toggle">
          <input type="checkbox" data-testid="revert-subtree" checked={subtree} onChange={(event) => setSubtree(event.target.checked)} />
          with its subtree&apos;s changes
        </label>
      )}
      {refused && (
        <div className="revert-dialog__refusal" role="alert" data-testid="revert-refusal">
          <div>{refused.message}</div>
          <ul>
            {refused.blocks
              .filter((block) => block.reason === 'later_change' && block.agent_id)
              .map((block) => (
                <li key={`${block.path}:${block.agent_id}`}>
                  <button
                    type="button"
                    className="link-button"
                    data-testid="revert-block-diff"
                    onClick={() => {
                      useArbor.getState().showChanges(block.agent_id!, block.path)
                      close()
                    }}
                  >
                    Show {block.label}&apos;s diff of {block.path}
                  </button>
                </li>
              ))}
          </ul>
        </div>
      )}
      {error && <div className="prompt-edit__error">{error}</div>}
      <div className="revert-dialog__actions">
        <button type="button" className="button" data-testid="revert-cancel" onClick={close}>
          {refused ? 'Close' : 'Cancel'}
        </button>
        <button
          type="button"
          className="button danger"
          data-testid="revert-confirm"
          disabled={busy}
          autoFocus
          onClick={() => void revert()}
        >
          {busy ? 'Reverting…' : 'Revert'}
        </button>
      </div>
    </div>
  )
}
