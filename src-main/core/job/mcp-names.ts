/**
 * How MCP tools are named and picked (Claude Code's convention): a server's tool `tool` is
 * `mcp__<server>__<tool>` to the model; a profile's `tools` allowlist names one tool by that name,
 * or every tool of a server as `mcp__<server>` or `mcp__<server>__*`. Shared by the supervisor
 * (which lists and calls the tools) and the agent (which offers them to its model).
 */

export const mcpPrefix = 'mcp__'

/** The model-facing name of a server's tool. */
export const mcpToolName = (server: string, tool: string): string => `${mcpPrefix}${server}__${tool}`

export const isMcpName = (name: string): boolean => name.startsWith(mcpPrefix)

/** The server an allowlist entry or tool name refers to (`mcp__srv`, `mcp__srv__*`, `mcp__srv__tool`), or null. */
export function mcpServerOf(name: string): string | null {
  if (!isMcpName(name)) return null
  const rest = name.slice(mcpPrefix.length)
  const end = rest.indexOf('__')
  const server = end < 0 ? rest : rest.slice(0, end)
  return server === '' ? null : server
}

/** True when an allowlist (a profile's `tools`, or its `mcp_trusted`) lets `server`'s `tool` be used. */
export function mcpAllowed(list: readonly string[], server: string, tool: string): boolean {
  const whole = `${mcpPrefix}${server}`
  return list.some((entry) => entry === whole || entry === `${whole}__*` || entry === mcpToolName(server, tool))
}
