import type { ApiHandlers, ApiResult, ArborApi, ArborBridge } from '@core/api/contract'
import { unwrapResult } from '@core/api/errors'
import { apiMethods } from '@core/api/methods'

/**
 * The ArborApi over the preload's `window.arbor`, whose methods resolve to results: a failed
 * result is thrown as an ApiFailure with its `code` and a refused form's `fields`, as the
 * WebSocket client throws it.
 */
export function clientOfBridge(bridge: ArborBridge): ArborApi {
  const methods = Object.fromEntries(
    apiMethods.map((method) => {
      const send = bridge[method] as (input: unknown) => Promise<ApiResult<unknown>>
      return [method, async (input: unknown) => unwrapResult(await send(input))]
    }),
  ) as unknown as ApiHandlers
  return {
    ...methods,
    subscribe: (listener) => bridge.subscribe(listener),
    pathForFile: (file) => bridge.pathForFile?.(file) ?? '',
  }
}
