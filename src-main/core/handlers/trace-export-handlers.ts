import type { ApiHandlers, TraceExportView } from '../api/contract'
import { ApiFailure } from '../api/errors'
import type { AutoExport } from '../otlp/auto-export'
import { tracesUrl } from '../api/otlp-endpoint'
import { traceHeaderSecret } from '../settings/key-store'
import type { EngineContext } from './context'

type TraceExportHandlers = Pick<ApiHandlers, 'getTraceExport' | 'setTraceExport'>

/**
 * The trace export setting: endpoint and on/off in the store, header values in the key store
 * beside API keys. Values are write-only: the view lists header names and whether each is set.
 */
export function traceExportHandlers(context: EngineContext, autoExport: AutoExport): TraceExportHandlers {
  const view = (): TraceExportView => {
    const saved = context.settings.traceExport()
    return {
      endpoint: saved?.endpoint ?? null,
      url: saved?.endpoint ? tracesUrl(saved.endpoint) : null,
      enabled: saved?.enabled ?? false,
      headers: (saved?.header_names ?? []).map((name) => ({ name, set: context.keys.get(traceHeaderSecret(name)) !== null })),
      last_send: autoExport.lastSend,
    }
  }
  return {
    getTraceExport: async () => view(),
    setTraceExport: async ({ endpoint, enabled, headers }) => {
      const saved = context.settings.traceExport()
      const before = saved?.header_names ?? []
      // Every check first, so a refused request changes nothing.
      for (const header of headers) {
        if (header.value === undefined && context.keys.get(traceHeaderSecret(header.name)) === null) {
          throw new ApiFailure('invalid_request', `header ${header.name} has no value yet`, {
            headers: `header ${header.name} needs a value`,
          })
        }
        // A stored credential goes only to the host it was entered for, as a provider key goes only to its base URL.
        if (header.value === undefined && saved?.endpoint && endpoint && !sameOrigin(saved.endpoint, endpoint)) {
          throw new ApiFailure(
            'invalid_request',
            `the value of header ${header.name} was saved for ${new URL(tracesUrl(saved.endpoint)).origin}: enter it again to send it to ${new URL(tracesUrl(endpoint)).origin}`,
            {
              headers: `enter the value of ${header.name} again for the new endpoint`,
            },
          )
        }
      }
      if (headers.some((header) => header.value !== undefined) && !context.keys.available) {
        throw new ApiFailure('unsupported', 'header values cannot be stored here: no OS keyring is available')
      }
      for (const header of headers) if (header.value !== undefined) context.keys.set(traceHeaderSecret(header.name), header.value.trim())
      const kept = new Set(headers.map((header) => header.name.toLowerCase()))
      for (const name of before) if (!kept.has(name.toLowerCase())) context.keys.clear(traceHeaderSecret(name))
      if (endpoint === '' && headers.length === 0) context.settings.clearTraceExport()
      else context.settings.saveTraceExport({ endpoint, enabled, header_names: headers.map((header) => header.name) })
      return view()
    },
  }
}

const sameOrigin = (a: string, b: string): boolean => new URL(tracesUrl(a)).origin === new URL(tracesUrl(b)).origin
