import { test as base } from '@playwright/test'
import type { FakeServer } from '../../src-main/core/providers/testing/fake-http'
import { startFakeOpenAI, type FakeOpenAIResponse } from '../../src-main/core/providers/testing/fake-openai'
import { startArborServer, type ArborServer } from './arbor-server'

export { expect } from '@playwright/test'

type ServerOptions = Parameters<typeof startArborServer>[0]
type ModelOptions = Parameters<typeof startFakeOpenAI>[0]

/**
 * The journeys' test: `arborServer()` starts `arbor serve` on a fresh fixture project and
 * `fakeModel()` a local server that streams like the OpenAI API; whatever a test started is
 * stopped after it, the server before the model it calls.
 */
export const test = base.extend<{
  arborServer: (options?: ServerOptions) => Promise<ArborServer>
  fakeModel: (options: ModelOptions) => Promise<FakeServer<FakeOpenAIResponse>>
}>({
  // Playwright reads a fixture's dependencies from its first parameter: it must be a pattern.
  // eslint-disable-next-line no-empty-pattern
  fakeModel: async ({}, use) => {
    const models: FakeServer<FakeOpenAIResponse>[] = []
    await use(async (options) => {
      const model = await startFakeOpenAI(options)
      models.push(model)
      return model
    })
    for (const model of models) await model.close()
  },
  arborServer: async ({ fakeModel: _model }, use) => {
    const servers: ArborServer[] = []
    await use(async (options) => {
      const server = await startArborServer(options)
      servers.push(server)
      return server
    })
    for (const server of servers) await server.stop()
  },
})
