import { apiContract, type ApiInput, type TraceExportView } from '@core/api/contract'

/** Pure helpers of the trace export section: what it sends, and what it says. Never a header value. */

export interface HeaderDraft {
  name: string
  /** '' keeps the stored value of a saved header; a new header needs one. */
  value: string
  /** Saved before: its value is in the key store. */
  saved: boolean
}

export interface TraceExportDraft {
  endpoint: string
  enabled: boolean
  headers: HeaderDraft[]
}

export const draftFromView = (view: TraceExportView): TraceExportDraft => ({
  endpoint: view.endpoint ?? '',
  enabled: view.enabled,
  headers: view.headers.map((header) => ({ name: header.name, value: '', saved: header.set })),
})

/** The request that saves a draft, checked with the contract's schema; or the first problem, in words. */
export function traceExportRequest(
  draft: TraceExportDraft,
): { ok: true; input: ApiInput<'setTraceExport'> } | { ok: false; error: string } {
  const headers = draft.headers
    .filter((header) => header.name.trim() || header.value.trim())
    .map((header) =>
      header.value.trim() || !header.saved ? { name: header.name.trim(), value: header.value.trim() } : { name: header.name.trim() },
    )
  const unnamed = headers.find((header) => !header.name)
  if (unnamed) return { ok: false, error: 'a header needs a name' }
  const empty = headers.find((header) => 'value' in header && !header.value)
  if (empty) return { ok: false, error: `header ${empty.name} needs a value` }
  const checked = apiContract.setTraceExport.safeParse({ endpoint: draft.endpoint, enabled: draft.enabled, headers })
  if (!checked.success) return { ok: false, error: checked.error.issues[0]?.message ?? 'check the fields' }
  return { ok: true, input: checked.data }
}

/** "Last send: job … — 8 spans sent to …", or null before the first. */
export function lastSendText(view: TraceExportView): { ok: boolean; text: string } | null {
  const last = view.last_send
  if (!last) return null
  return { ok: last.ok, text: `Last send (job ${last.job_id}, ${new Date(last.at).toLocaleTimeString()}): ${last.message}` }
}

export const endpointPresets = [
  { label: 'Langfuse', url: 'https://cloud.langfuse.com/api/public/otel/v1/traces' },
  { label: 'Phoenix', url: 'http://localhost:6006/v1/traces' },
  { label: 'Jaeger v2 / Collector', url: 'http://localhost:4318/v1/traces' },
] as const
