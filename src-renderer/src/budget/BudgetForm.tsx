import { useState } from 'react'
import { numberFromText } from '../jobs/NewJobForm'
import { errorText } from '../store/error-text'
import { formatCost, formatTokens } from '../util/format'

/** Caps as the API takes them: a key left out keeps its cap. */
export interface CapsInput {
  tokens?: number
  cost_usd?: number
}

export interface BudgetFormProps {
  /** What the caps are on: "the job", "the branch of explorer". */
  what: string
  testId: string
  /** The caps now (null: none) and what is spent against them. */
  tokens: number | null
  cost: number | null
  spentTokens: number
  spentCost: number | null
  /** Offer a cost cap too (the job has one). */
  withCost: boolean
  submitLabel: string
  /** Rejects with the API's error, which the form shows. */
  onSubmit(caps: CapsInput): Promise<void>
  onClose(): void
}

/**
 * New caps for the job (the toolbar's Raise to…) or for an agent's branch (the node menu's Set
 * branch budget…): prefilled with twice what is spent or the cap now, whichever is more. The
 * supervisor checks them (above what is spent; a branch within what the job has left) and its
 * refusal stays in the form. Escape or Cancel closes it unchanged.
 */
export function BudgetForm(props: BudgetFormProps) {
  const suggest = (cap: number | null, spent: number, whole: boolean): string => {
    const value = Math.max(cap ?? 0, spent * 2) || (whole ? 100_000 : 1)
    return whole ? String(Math.ceil(value)) : value.toFixed(2)
  }
  const [tokens, setTokens] = useState(suggest(props.tokens, props.spentTokens, true))
  const [cost, setCost] = useState(props.withCost ? suggest(props.cost, props.spentCost ?? 0, false) : '')
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const submit = async () => {
    const tokenValue = numberFromText(tokens, { whole: true, empty: undefined })
    const costValue = props.withCost ? numberFromText(cost, { whole: false, empty: undefined }) : undefined
    const caps: CapsInput = {
      ...(tokenValue !== undefined && tokenValue !== null ? { tokens: tokenValue } : {}),
      ...(costValue !== undefined && costValue !== null ? { cost_usd: costValue } : {}),
    }
    if (Object.values(caps).some((value) => !Number.isFinite(value) || value <= 0)) return setError('A budget is a number above 0.')
    if (Object.keys(caps).length === 0) return setError('Give a token budget or a cost budget.')
    setSaving(true)
    setError(null)
    try {
      await props.onSubmit(caps)
      props.onClose()
    } catch (failure) {
      setError(errorText(failure))
      setSaving(false)
    }
  }
  return (
    <form
      className="budget-form"
      data-testid={props.testId}
      onSubmit={(event) => {
        event.preventDefault()
        void submit()
      }}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return
        event.preventDefault()
        event.stopPropagation()
        props.onClose()
      }}
    >
      <div className="muted small">
        Spent by {props.what}: {formatTokens(props.spentTokens)} tok
        {props.spentCost !== null ? ` · ${formatCost(props.spentCost)}` : ''}. Agents paused at the cap go on once it is raised.
      </div>
      <label className="budget-form__row">
        <span>Tokens</span>
        <input
          className="input"
          data-testid={`${props.testId}-tokens`}
          inputMode="numeric"
          autoFocus
          value={tokens}
          placeholder={props.tokens === null ? 'none' : String(props.tokens)}
          onChange={(event) => setTokens(event.target.value)}
        />
      </label>
      {props.withCost && (
        <label className="budget-form__row">
          <span>USD</span>
          <input
            className="input"
            data-testid={`${props.testId}-cost`}
            inputMode="decimal"
            value={cost}
            onChange={(event) => setCost(event.target.value)}
          />
        </label>
      )}
      {error && (
        <div className="prompt-edit__error" role="alert" data-testid={`${props.testId}-error`}>
          {error}
        </div>
      )}
      <div className="prompt-edit__actions">
        <span className="muted small" />
        <button className="button" type="button" onClick={props.onClose}>
          Cancel
        </button>
        <button className="button primary" type="submit" data-testid={`${props.testId}-save`} disabled={saving}>
          {saving ? 'Saving…' : props.submitLabel}
        </button>
      </div>
    </form>
  )
}
