// A real MCP stdio server for tests, written with the SDK. Tools: echo (answers), crash (the
// process exits mid-call), hang (never answers), garble (writes a line that is not JSON-RPC).
// touch writes a file; secret is one no profile allows. Each start appends its pid to $MCP_PID_FILE when set.
import { appendFileSync, writeFileSync } from 'node:fs'
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { z } from 'zod'

if (process.env.MCP_PID_FILE) appendFileSync(process.env.MCP_PID_FILE, `${process.pid}\n`)
const server = new McpServer({ name: 'test-tools', version: '1.0.0' })
server.registerTool(
  'echo',
  { description: 'Echoes its text back, upper-cased.', inputSchema: { text: z.string().describe('what to echo') } },
  async ({ text }) => ({ content: [{ type: 'text', text: `ECHO: ${text.toUpperCase()}` }] }),
)
server.registerTool('crash', { description: 'Exits the server mid-call.', inputSchema: {} }, async () => {
  process.exit(3)
})
server.registerTool('hang', { description: 'Never answers.', inputSchema: {} }, () => new Promise(() => {}))
server.registerTool('garble', { description: 'Answers with a line that is not JSON.', inputSchema: {} }, async () => {
  process.stdout.write('this is not json\n')
  return new Promise(() => {})
})
server.registerTool(
  'touch',
  { description: 'Writes a file (to see what the sandbox lets it write).', inputSchema: { path: z.string() } },
  async ({ path }) => {
    try {
      writeFileSync(path, 'touched\n')
      return { content: [{ type: 'text', text: `wrote ${path}` }] }
    } catch (error) {
      return { content: [{ type: 'text', text: `cannot write ${path}: ${error.code}` }], isError: true }
    }
  },
)
server.registerTool('secret', { description: 'A tool the profile does not allow.', inputSchema: {} }, async () => ({
  content: [{ type: 'text', text: 'SECRET' }],
}))
await server.connect(new StdioServerTransport())
