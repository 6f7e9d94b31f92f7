import { useEffect, useRef, useState } from 'react'
import type { ExportFormat } from '../api/transport'
import { useArbor } from '../store'

/**
 * Export, as a split button: the main part saves JSONL at once (Arbor's own trace, re-importable);
 * the arrow opens the list of formats, with OTLP JSON for Jaeger, Langfuse or Phoenix.
 */
export function ExportMenu({ jobId }: { jobId: string }) {
  const [open, setOpen] = useState(false)
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (!open) return
    const close = (event: MouseEvent | KeyboardEvent) => {
      if (event instanceof KeyboardEvent ? event.key === 'Escape' : !root.current?.contains(event.target as Node)) setOpen(false)
    }
    window.addEventListener('mousedown', close)
    window.addEventListener('keydown', close)
    return () => {
      window.removeEventListener('mousedown', close)
      window.removeEventListener('keydown', close)
    }
  }, [open])
  const run = (format: ExportFormat) => {
    setOpen(false)
    void useArbor.getState().exportJob(jobId, format)
  }
  return (
    <div className="split-button" ref={root}>
      <button
        className="button split-button__main"
        data-testid="export-jsonl"
        title="Export the trace as JSONL (E)"
        onClick={() => run('jsonl')}
      >
        ⤓ Export JSONL
      </button>
      <button
        className={`button split-button__arrow${open ? ' active' : ''}`}
        data-testid="export-menu"
        aria-haspopup="menu"
        aria-expanded={open}
        title="More export formats"
        onClick={() => setOpen(!open)}
      >
        ▾
      </button>
      {open && (
        <div className="menu" role="menu" data-testid="export-options">
          <button className="menu__item" role="menuitem" data-testid="export-menu-jsonl" onClick={() => run('jsonl')}>
            <span className="menu__title">JSONL trace</span>
            <span className="menu__hint">Arbor’s trace format; opens again with Open trace…</span>
          </button>
          <button className="menu__item" role="menuitem" data-testid="export-jsonl-contents" onClick={() => run('jsonl_contents')}>
            <span className="menu__title">JSONL with file contents</span>
            <span className="menu__hint">Also each changed file’s versions (up to 1 MiB each), for diffs after import</span>
          </button>
          <button className="menu__item" role="menuitem" data-testid="export-otlp" onClick={() => run('otlp')}>
            <span className="menu__title">OTLP JSON</span>
            <span className="menu__hint">OpenTelemetry GenAI spans for Jaeger, Langfuse, Phoenix</span>
          </button>
        </div>
      )}
    </div>
  )
}
