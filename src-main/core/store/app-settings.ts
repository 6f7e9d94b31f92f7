import type { Statement } from 'better-sqlite3'
import { rememberedSettings, type NewJob } from '../api/job-form'
import { defaultPrices, type ModelPrice, type PriceTable } from '../providers/pricing'
import { defaultMaxModelCalls } from '../supervisor/provider-limits'
import type { SqliteDatabase } from './database'

/**
 * What the app remembers besides traces (migration 002): recent projects with the last new-job
 * settings of each, per-provider settings, and the user's price edits. Never a key: keys live in
 * the key store (core/settings/key-store.ts). Statements are prepared once.
 */

export interface ProjectRecord {
  path: string
  name: string
  opened_at: string
}

export interface ProviderSettingsRecord {
  provider: string
  base_url: string | null
  model: string
  light_model: string | null
}

type PriceRecord = ModelPrice & { model: string }

/** Where finished jobs' traces are sent (core/otlp/auto-export.ts); header values live in the key store. */
export interface TraceExportRecord {
  endpoint: string
  enabled: boolean
  header_names: string[]
}

export class AppSettings {
  private readonly statements: {
    newestOpen: Statement<[], { opened_at: string | null }>
    recordProject: Statement<[string, string, string]>
    recentProjects: Statement<[number], ProjectRecord>
    jobDefaults: Statement<[string], { job_defaults: string | null }>
    saveJobDefaults: Statement<[string, string, string, string]>
    providerSettings: Statement<[string], ProviderSettingsRecord>
    saveProviderSettings: Statement<[ProviderSettingsRecord]>
    prices: Statement<[], PriceRecord>
    setPrice: Statement<[string, number, number, number, number, string]>
    resetPrice: Statement<[string]>
    traceExport: Statement<[], { endpoint: string; enabled: number; header_names: string }>
    saveTraceExport: Statement<[string, number, string, string]>
    clearTraceExport: Statement<[]>
    value: Statement<[string], { value: string }>
    setValue: Statement<[string, string, string]>
  }

  constructor(
    db: SqliteDatabase,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.statements = {
      newestOpen: db.prepare('SELECT max(opened_at) AS opened_at FROM projects'),
      recordProject: db.prepare(
        'INSERT INTO projects (path, name, opened_at) VALUES (?, ?, ?) ON CONFLICT (path) DO UPDATE SET name = excluded.name, opened_at = excluded.opened_at',
      ),
      recentProjects: db.prepare('SELECT path, name, opened_at FROM projects ORDER BY opened_at DESC, rowid DESC LIMIT ?'),
      jobDefaults: db.prepare('SELECT job_defaults FROM projects WHERE path = ?'),
      saveJobDefaults: db.prepare(
        'INSERT INTO projects (path, name, opened_at, job_defaults) VALUES (?, ?, ?, ?) ON CONFLICT (path) DO UPDATE SET job_defaults = excluded.job_defaults',
      ),
      providerSettings: db.prepare('SELECT provider, base_url, model, light_model FROM provider_settings WHERE provider = ?'),
      saveProviderSettings: db.prepare(
        `INSERT INTO provider_settings (provider, base_url, model, light_model) VALUES (@provider, @base_url, @model, @light_model)
         ON CONFLICT (provider) DO UPDATE SET base_url = excluded.base_url, model = excluded.model, light_model = excluded.light_model`,
      ),
      prices: db.prepare('SELECT model, input, output, cache_read, cache_write FROM prices ORDER BY model'),
      setPrice: db.prepare(
        `INSERT INTO prices (model, input, output, cache_read, cache_write, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (model) DO UPDATE SET input = excluded.input, output = excluded.output,
           cache_read = excluded.cache_read, cache_write = excluded.cache_write, updated_at = excluded.updated_at`,
      ),
      resetPrice: db.prepare('DELETE FROM prices WHERE model = ?'),
      traceExport: db.prepare('SELECT endpoint, enabled, header_names FROM trace_export WHERE id = 1'),
      saveTraceExport: db.prepare(
        `INSERT INTO trace_export (id, endpoint, enabled, header_names, updated_at) VALUES (1, ?, ?, ?, ?)
         ON CONFLICT (id) DO UPDATE SET endpoint = excluded.endpoint, enabled = excluded.enabled,
           header_names = excluded.header_names, updated_at = excluded.updated_at`,
      ),
      clearTraceExport: db.prepare('DELETE FROM trace_export WHERE id = 1'),
      value: db.prepare('SELECT value FROM app_values WHERE name = ?'),
      setValue: db.prepare(
        `INSERT INTO app_values (name, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`,
      ),
    }
  }

  recordProject(path: string, name: string): void {
    // Strictly later than the newest entry, so two opens in one millisecond keep their order.
    const newest = this.statements.newestOpen.get()?.opened_at
    const now = this.now().getTime()
    const openedAt = new Date(newest && Date.parse(newest) >= now ? Date.parse(newest) + 1 : now).toISOString()
    this.statements.recordProject.run(path, name, openedAt)
  }

  /** Most recent first. */
  recentProjects(limit = 20): ProjectRecord[] {
    return this.statements.recentProjects.all(limit)
  }

  /** The settings of the last job started in `project` (its task left out), or null. */
  jobDefaults(project: string): Omit<NewJob, 'task'> | null {
    const row = this.statements.jobDefaults.get(project)
    return row?.job_defaults ? (JSON.parse(row.job_defaults) as Omit<NewJob, 'task'>) : null
  }

  /** Remembers a started job's settings for the project's next one; never its task or the sandbox opt-out. */
  saveJobDefaults(project: string, name: string, job: NewJob): void {
    this.statements.saveJobDefaults.run(project, name, this.now().toISOString(), JSON.stringify(rememberedSettings(job)))
  }

  providerSettings(provider: string): ProviderSettingsRecord | null {
    return this.statements.providerSettings.get(provider) ?? null
  }

  saveProviderSettings(record: ProviderSettingsRecord): void {
    this.statements.saveProviderSettings.run(record)
  }

  /** The user's edits and additions to the price table. */
  priceEdits(): Record<string, ModelPrice> {
    return Object.fromEntries(this.statements.prices.all().map(({ model, ...price }) => [model, price]))
  }

  /** The table new jobs use: the built-in prices with the user's edits on top. */
  prices(): PriceTable {
    return { ...defaultPrices, ...this.priceEdits() }
  }

  setPrice(model: string, price: ModelPrice): void {
    this.statements.setPrice.run(model, price.input, price.output, price.cache_read, price.cache_write, this.now().toISOString())
  }

  resetPrice(model: string): boolean {
    return this.statements.resetPrice.run(model).changes > 0
  }

  /** The trace export setting, or null when none was saved. */
  traceExport(): TraceExportRecord | null {
    const row = this.statements.traceExport.get()
    if (!row) return null
    const names = JSON.parse(row.header_names) as unknown
    return {
      endpoint: row.endpoint,
      enabled: row.enabled === 1,
      header_names: Array.isArray(names) ? names.filter((name) => typeof name === 'string') : [],
    }
  }

  saveTraceExport(record: TraceExportRecord): void {
    this.statements.saveTraceExport.run(
      record.endpoint,
      record.enabled ? 1 : 0,
      JSON.stringify(record.header_names),
      this.now().toISOString(),
    )
  }

  clearTraceExport(): void {
    this.statements.clearTraceExport.run()
  }

  /** Model calls in flight at once per API endpoint (Settings ▸ Providers); `defaultMaxModelCalls` until set. */
  maxModelCalls(): number {
    const value = Number(this.statements.value.get('max_model_calls')?.value)
    return Number.isInteger(value) && value > 0 ? value : defaultMaxModelCalls
  }

  setMaxModelCalls(value: number): void {
    this.statements.setValue.run('max_model_calls', String(value), this.now().toISOString())
  }
}
