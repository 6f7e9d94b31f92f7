import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { z } from 'zod'

/**
 * A real streamable-HTTP MCP server on 127.0.0.1 (stateless: a server per request), with one tool,
 * `weather`. It refuses requests without the `authorization` header it was given, and records the
 * headers it saw.
 */
export async function startHttpMcpServer(token: string): Promise<{ url: string; seenAuth: string[]; close(): Promise<void> }> {
  const seenAuth: string[] = []
  const http: Server = createServer((request, response) => {
    seenAuth.push(String(request.headers.authorization ?? ''))
    if (request.headers.authorization !== `Bearer ${token}`) {
      response.writeHead(401).end('unauthorized')
      return
    }
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined
      const server = new McpServer({ name: 'weather', version: '1.0.0' })
      server.registerTool('weather', { description: 'The weather in a city.', inputSchema: { city: z.string() } }, async ({ city }) => ({
        content: [{ type: 'text', text: `SUNNY in ${city}` }],
      }))
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
      response.on('close', () => {
        void transport.close()
        void server.close()
      })
      void server.connect(transport).then(() => transport.handleRequest(request, response, body))
    })
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  const { port } = http.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    seenAuth,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  }
}
