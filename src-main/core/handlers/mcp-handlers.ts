import type { ApiHandlers, McpServerInfo } from '../api/contract'
import { describeServer } from '../job/mcp-config'
import { McpHub } from '../mcp/hub'
import { requireProject, type EngineContext } from './context'

/** How long Settings waits for a server to start and list its tools. */
const listTimeoutMs = 20_000

/**
 * Settings' MCP servers (`listMcpServers`): what the open project configures, and on request
 * (`start: true`, the "Show tools" button) each server's tools. A server is started for the list
 * only then, as a job would start it (stdio in the OS sandbox, no network), and stopped at once.
 * No env value or header leaves here.
 */
export function mcpHandlers(context: EngineContext): Pick<ApiHandlers, 'listMcpServers'> {
  return {
    listMcpServers: async ({ start }) => {
      const project = requireProject(context).path
      const loaded = context.profilesFor(project)
      const specs = loaded.mcpServers ?? {}
      const errors = loaded.errors.filter((error) => error.file === '.mcp.json' || error.field.startsWith('mcpServers'))
      const servers: McpServerInfo[] = Object.values(specs).map((spec) => ({
        name: spec.name,
        source: spec.source,
        ...(spec.shown ?? describeServer(spec.config)),
        profiles: Object.values(loaded.profiles)
          .filter((profile) => profile.mcp_servers?.includes(spec.name))
          .map((profile) => profile.name),
        status: 'configured',
      }))
      if (!start || servers.length === 0) return { servers, errors }
      const hub = new McpHub({
        projectDir: project,
        servers: specs,
        sandbox: { mode: 'sandboxed', network: false, protected_paths: context.protectedPathsFor?.(project) ?? [] },
        callTimeoutMs: listTimeoutMs,
      })
      try {
        for (const server of servers) {
          const listed = await hub.tools(server.name)
          if (listed.ok) {
            server.status = 'started'
            server.tools = listed.tools.map((tool) => ({ name: tool.name, description: tool.description }))
          } else {
            server.status = 'failed'
            server.error = listed.error
          }
        }
      } finally {
        await hub.close()
      }
      return { servers, errors }
    },
  }
}
