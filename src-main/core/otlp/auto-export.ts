import { createRedactor } from '../secrets/redact'
import { traceHeaderSecret, type KeyStore } from '../settings/key-store'
import type { AppSettings } from '../store/app-settings'
import type { SqliteDatabase } from '../store/database'
import { endpointLabel, tracesUrl } from '../api/otlp-endpoint'
import { pushJob } from './push'

/** The outcome of the newest automatic send, for settings to show. */
export interface LastTraceSend {
  job_id: string
  ok: boolean
  /** e.g. "8 spans sent to http://localhost:4318/v1/traces", or the one-line failure. */
  message: string
  at: string
}

export interface AutoExportOptions {
  db: SqliteDatabase
  settings: AppSettings
  keys: KeyStore
  /** Commits the trace writer's pending events, so the send sees `job.end`. */
  flush(): void
  /** Every secret the engine knows (settings/known-secrets.ts), read at each send; the key store's by default. None is sent in a span or shown in a notice. */
  secrets?: () => readonly string[]
  /** Where notices go; default stderr. Never given a header value. */
  log?: (line: string) => void
  timeoutMs?: number
  now?: () => Date
}

/** The saved endpoint as a traces URL with its headers' values from the key store, or null when sending is off. */
export function traceExportTarget(settings: AppSettings, keys: KeyStore): { url: string; headers: Record<string, string> } | null {
  const saved = settings.traceExport()
  if (!saved?.enabled || !saved.endpoint) return null
  const headers: Record<string, string> = {}
  for (const name of saved.header_names) {
    const value = keys.get(traceHeaderSecret(name))
    if (value !== null) headers[name] = value
  }
  return { url: tracesUrl(saved.endpoint), headers }
}

/**
 * Sends every job this process ran to the collector in settings when it ends (the engine calls
 * `jobEnded` on `job.end`; imported jobs never run here, so they are never sent). A failed send
 * is a notice and the newest outcome in settings; it never touches the job.
 */
export class AutoExport {
  private last: LastTraceSend | null = null
  private readonly inFlight = new Set<Promise<void>>()
  private readonly log: (line: string) => void

  constructor(private readonly options: AutoExportOptions) {
    this.log = options.log ?? ((line) => console.error(line))
  }

  get lastSend(): LastTraceSend | null {
    return this.last
  }

  jobEnded(jobId: string): void {
    let target: ReturnType<typeof traceExportTarget>
    try {
      target = traceExportTarget(this.options.settings, this.options.keys)
    } catch (error) {
      this.record(jobId, false, `trace not sent: ${error instanceof Error ? error.message : String(error)}`)
      return
    }
    if (!target) return
    this.options.flush()
    const { url, headers } = target
    const secrets = this.secrets()
    const send = pushJob(this.options.db, jobId, { endpoint: url, headers, secrets, timeoutMs: this.options.timeoutMs }).then(
      ({ spans }) => this.record(jobId, true, `${spans} spans sent to ${endpointLabel(url)}`),
      (error: unknown) => this.record(jobId, false, `trace not sent: ${error instanceof Error ? error.message : String(error)}`),
    )
    this.inFlight.add(send)
    void send.finally(() => this.inFlight.delete(send))
  }

  /** Waits for the sends in flight (before the engine closes the database). */
  async settle(): Promise<void> {
    await Promise.all([...this.inFlight])
  }

  private secrets(): readonly string[] {
    return this.options.secrets?.() ?? this.options.keys.secrets()
  }

  private record(jobId: string, ok: boolean, text: string): void {
    const message = createRedactor(this.secrets()).redact(text)
    this.last = { job_id: jobId, ok, message, at: (this.options.now ?? (() => new Date()))().toISOString() }
    this.log(`arbor: job ${jobId}: ${message}`)
  }
}
