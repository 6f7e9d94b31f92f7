import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import type { PriceRow } from '@core/api/contract'
import { useArbor } from '../store'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'
import type { FormsSlice } from '../store/types'
import {
  checkNewModel,
  emptyPriceDraft,
  filterPrices,
  parsePriceDraft,
  priceDraft,
  priceFieldLabels,
  priceFields,
  priceSourceLabels,
  samePrice,
  withPrices,
  type PriceDraft,
  type PriceErrors,
  type PriceField,
} from './settings-model'

const applyPrices = (prices: PriceRow[]) => useArbor.getState().patchSettings((view) => withPrices(view, prices))

/** The price table: every row editable in place, and a row to add a model. */
export function PriceTable(props: { rows: PriceRow[]; focus: FormsSlice['settingsFocus']; onFocusPrices(): void }) {
  const { rows } = props
  const [filter, setFilter] = useState('')
  const [addModel, setAddModel] = useState('')
  const [addDraft, setAddDraft] = useState<PriceDraft>(emptyPriceDraft)
  const [addErrors, setAddErrors] = useState<PriceErrors>({})
  const [addBusy, setAddBusy] = useState(false)
  const [added, setAdded] = useState<string | null>(null)
  const [highlight, setHighlight] = useState<string | null>(null)
  const tableRef = useRef<HTMLDivElement>(null)
  const newJobOpen = useArbor((state) => state.newJobOpen)

  const rowElement = (model: string) =>
    tableRef.current?.querySelector<HTMLElement>(`[data-testid="price-row-${CSS.escape(model)}"]`) ?? null

  const reveal = (model: string) => {
    setFilter('')
    setHighlight(model)
    requestAnimationFrame(() => {
      const row = rowElement(model)
      row?.scrollIntoView({ block: 'center' })
      row?.querySelector<HTMLInputElement>('input')?.focus()
    })
  }

  // openSettings({ priceModel }): that model's row, or the add row with its name filled in.
  const focusSeq = props.focus?.seq
  useEffect(() => {
    const model = props.focus?.priceModel
    if (!model) return
    props.onFocusPrices()
    if (rows.some((row) => row.model === model)) {
      reveal(model)
      return
    }
    setAddModel(model)
    setAddErrors({})
    setAdded(null)
    requestAnimationFrame(() => {
      const add = tableRef.current?.querySelector<HTMLElement>('[data-testid="price-add-row"]')
      add?.scrollIntoView({ block: 'center' })
      add?.querySelector<HTMLInputElement>('[data-testid="price-add-input"]')?.focus()
    })
    // Runs for each openSettings call (a new seq), not for every price change.
  }, [focusSeq])

  useEffect(() => {
    if (!highlight) return
    const timer = setTimeout(() => setHighlight(null), 2400)
    return () => clearTimeout(timer)
  }, [highlight])

  const add = async () => {
    if (addBusy) return
    const modelError = checkNewModel(addModel, rows)
    const parsed = parsePriceDraft(addDraft)
    const errors: PriceErrors = { ...(parsed.ok ? {} : parsed.errors), ...(modelError ? { model: modelError } : {}) }
    if (modelError || !parsed.ok) {
      setAddErrors(errors)
      const first = (['model', ...priceFields] as const).find((field) => errors[field])
      tableRef.current?.querySelector<HTMLInputElement>(`[data-testid="price-add-${first}"]`)?.focus()
      return
    }
    setAddBusy(true)
    setAddErrors({})
    try {
      const model = addModel.trim()
      const { prices } = await api().setPrice({ model, price: parsed.price })
      applyPrices(prices)
      setAddModel('')
      setAddDraft(emptyPriceDraft())
      setAdded(model)
      reveal(model)
    } catch (error) {
      setAddErrors({ model: errorText(error) })
    } finally {
      setAddBusy(false)
    }
  }

  const onAddKey = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault()
      void add()
    }
  }

  const shown = filterPrices(rows, filter)
  const counts = {
    edited: rows.filter((row) => row.source === 'edited').length,
    custom: rows.filter((row) => row.source === 'custom').length,
  }

  return (
    <div className="price-table" ref={tableRef}>
      <div className="price-table__toolbar">
        <input
          className="input price-filter"
          type="search"
          placeholder="Filter models…"
          aria-label="Filter models"
          data-testid="price-filter"
          value={filter}
          onChange={(event) => setFilter(event.target.value)}
        />
        <span className="muted small">
          {rows.length} models{counts.edited ? ` · ${counts.edited} edited` : ''}
          {counts.custom ? ` · ${counts.custom} added` : ''}
        </span>
      </div>
      <table className="prices">
        <caption className="visually-hidden">Prices in USD per million tokens</caption>
        <thead>
          <tr>
            <th scope="col" className="prices__model">
              Model
            </th>
            {priceFields.map((field) => (
              <th scope="col" key={field} className="prices__num">
                {priceFieldLabels[field]}
              </th>
            ))}
            <th scope="col">Source</th>
            <th scope="col" className="prices__actions">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody className="price-add">
          <tr data-testid="price-add-row" className={addModel && props.focus?.priceModel === addModel.trim() ? 'requested' : undefined}>
            <td className="prices__model">
              <input
                className="input cell-input mono"
                type="text"
                autoComplete="off"
                spellCheck={false}
                placeholder="Add a model…"
                aria-label="Model id to add"
                data-testid="price-add-model"
                value={addModel}
                aria-invalid={addErrors.model ? true : undefined}
                onChange={(event) => {
                  setAddModel(event.target.value)
                  setAdded(null)
                  if (addErrors.model) setAddErrors({ ...addErrors, model: undefined })
                }}
                onKeyDown={onAddKey}
              />
              {addErrors.model && (
                <div className="cell-error" role="alert" data-testid="price-add-error-model">
                  {addErrors.model}
                  {addErrors.model.startsWith('already') && (
                    <>
                      {' '}
                      <button type="button" className="inline-link" onClick={() => reveal(addModel.trim())}>
                        Show it
                      </button>
                    </>
                  )}
                </div>
              )}
            </td>
            {priceFields.map((field) => (
              <PriceCell
                key={field}
                label={`${priceFieldLabels[field]} price of the new model, USD per million tokens`}
                testId={`price-add-${field}`}
                errorTestId={`price-add-error-${field}`}
                placeholder={field === 'cache_read' || field === 'cache_write' ? '= input' : '0.00'}
                value={addDraft[field]}
                error={addErrors[field]}
                onChange={(value) => {
                  setAddDraft({ ...addDraft, [field]: value })
                  if (addErrors[field]) setAddErrors({ ...addErrors, [field]: undefined })
                }}
                onKeyDown={onAddKey}
              />
            ))}
            <td>
              <span className="source-badge custom">new</span>
            </td>
            <td className="prices__actions">
              <button
                type="button"
                className="button primary small"
                data-testid="price-add-save"
                disabled={addBusy}
                onClick={() => void add()}
              >
                Add
              </button>
            </td>
          </tr>
          {added && (
            <tr className="price-add__note">
              <td colSpan={7}>
                <span className="form-success" role="status" data-testid="price-added">
                  ✓ Added “{added}”.
                </span>{' '}
                {newJobOpen && (
                  <button type="button" className="inline-link" onClick={() => useArbor.getState().closeSettings()}>
                    Back to the new job
                  </button>
                )}
              </td>
            </tr>
          )}
        </tbody>
        <tbody>
          {shown.map((row) => (
            <PriceRowView
              key={`${row.model}:${row.input}:${row.output}:${row.cache_read}:${row.cache_write}:${row.source}`}
              row={row}
              highlight={highlight === row.model}
            />
          ))}
          {shown.length === 0 && (
            <tr>
              <td colSpan={7} className="prices__empty">
                No model matches “{filter.trim()}”.{' '}
                <button
                  type="button"
                  className="inline-link"
                  onClick={() => {
                    setAddModel(filter.trim())
                    setFilter('')
                    tableRef.current?.querySelector<HTMLInputElement>('[data-testid="price-add-input"]')?.focus()
                  }}
                >
                  Add it
                </button>
              </td>
            </tr>
          )}
        </tbody>
      </table>
      <p className="form-hint">Empty cache prices are the input price. Enter saves a row.</p>
    </div>
  )
}

function PriceRowView(props: { row: PriceRow; highlight: boolean }) {
  const { row } = props
  const [draft, setDraft] = useState<PriceDraft>(() => priceDraft(row))
  const [errors, setErrors] = useState<PriceErrors>({})
  const [busy, setBusy] = useState(false)
  const [failure, setFailure] = useState<string | null>(null)
  const dirty = !samePrice(draft, row)

  const save = async () => {
    if (busy || !dirty) return
    const parsed = parsePriceDraft(draft)
    if (!parsed.ok) {
      setErrors(parsed.errors)
      return
    }
    setBusy(true)
    setFailure(null)
    try {
      applyPrices((await api().setPrice({ model: row.model, price: parsed.price })).prices)
    } catch (error) {
      setFailure(errorText(error))
      setBusy(false)
    }
  }

  const reset = async () => {
    setBusy(true)
    setFailure(null)
    try {
      applyPrices((await api().resetPrice({ model: row.model })).prices)
    } catch (error) {
      setFailure(errorText(error))
      setBusy(false)
    }
  }

  const change = (field: PriceField, value: string) => {
    setDraft({ ...draft, [field]: value })
    if (errors[field]) setErrors({ ...errors, [field]: undefined })
  }

  return (
    <tr
      data-testid={`price-row-${row.model}`}
      data-source={row.source}
      className={`${dirty ? 'dirty' : ''}${props.highlight ? ' highlight' : ''}`}
    >
      <th scope="row" className="prices__model mono">
        {row.model}
        {failure && (
          <div className="cell-error" role="alert">
            {failure}
          </div>
        )}
      </th>
      {priceFields.map((field) => (
        <PriceCell
          key={field}
          label={`${priceFieldLabels[field]} price of ${row.model}, USD per million tokens`}
          testId={`price-${field}-${row.model}`}
          value={draft[field]}
          error={errors[field]}
          onChange={(value) => change(field, value)}
          onKeyDown={(event) => {
            if (event.key === 'Enter') {
              event.preventDefault()
              void save()
            }
          }}
        />
      ))}
      <td>
        <span className={`source-badge ${row.source}`}>{priceSourceLabels[row.source]}</span>
      </td>
      <td className="prices__actions">
        <button
          type="button"
          className={`button small${dirty ? ' primary' : ' subtle'}`}
          data-testid={`price-save-${row.model}`}
          disabled={busy || !dirty}
          onClick={() => void save()}
        >
          Save
        </button>
        {row.source === 'builtin' ? (
          <button
            type="button"
            className="button small subtle"
            data-testid={`price-reset-${row.model}`}
            disabled
            title="This is the built-in price"
          >
            Reset
          </button>
        ) : (
          <button
            type="button"
            className={`button small${row.source === 'custom' ? ' danger' : ''}`}
            data-testid={`price-reset-${row.model}`}
            disabled={busy}
            title={row.source === 'custom' ? 'Remove this model from the table' : 'Back to the built-in price'}
            onClick={() => void reset()}
          >
            {row.source === 'custom' ? 'Remove' : 'Reset'}
          </button>
        )}
      </td>
    </tr>
  )
}

/** One price input (USD per million tokens) with its error under it: the add row's and each model row's. */
function PriceCell(props: {
  label: string
  testId: string
  errorTestId?: string
  placeholder?: string
  value: string
  error: string | undefined
  onChange(value: string): void
  onKeyDown(event: KeyboardEvent<HTMLInputElement>): void
}) {
  return (
    <td className="prices__num">
      <input
        className="input cell-input num"
        type="text"
        inputMode="decimal"
        autoComplete="off"
        placeholder={props.placeholder}
        aria-label={props.label}
        data-testid={props.testId}
        value={props.value}
        aria-invalid={props.error ? true : undefined}
        onChange={(event) => props.onChange(event.target.value)}
        onKeyDown={props.onKeyDown}
      />
      {props.error && (
        <div className="cell-error" role="alert" data-testid={props.errorTestId}>
          {props.error}
        </div>
      )}
    </td>
  )
}
