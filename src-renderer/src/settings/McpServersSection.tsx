import { useEffect, useState } from 'react'
import type { McpServerInfo, McpServerList } from '@core/api/contract'
import { api } from '../store/api-ref'
import { errorText } from '../store/error-text'

/**
 * Settings ▸ MCP servers: the open project's servers (`.mcp.json` and profiles' inline ones),
 * and, on "Show tools", each server's tools, the servers started for the list and stopped again.
 * The engine sends no env value or header.
 */
export function McpServersSection() {
  const [list, setList] = useState<McpServerList | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const load = async (start: boolean) => {
    setBusy(start)
    setError(null)
    try {
      setList(await api().listMcpServers(start ? { start: true } : {}))
    } catch (failure) {
      setError(errorText(failure))
    } finally {
      setBusy(false)
    }
  }

  useEffect(() => {
    void load(false)
  }, [])

  return (
    <div className="mcp-servers" data-testid="mcp-servers">
      {error && (
        <div className="callout warn" role="status" data-testid="mcp-servers-error">
          {error}
        </div>
      )}
      {list?.errors.map((problem) => (
        <div key={`${problem.file}:${problem.field}`} className="callout error" role="alert" data-testid="mcp-config-error">
          <div className="callout__title">
            {problem.file}: {problem.field}
          </div>
          <div>{problem.message}</div>
        </div>
      ))}
      {list && list.servers.length === 0 && (
        <p className="muted small" data-testid="mcp-servers-none">
          This project configures no MCP server: add a <code>.mcp.json</code> or a profile&apos;s <code>mcpServers</code>.
        </p>
      )}
      {list && list.servers.length > 0 && (
        <button type="button" className="button small" data-testid="mcp-show-tools" disabled={busy} onClick={() => void load(true)}>
          {busy ? 'Starting servers…' : 'Show tools'}
        </button>
      )}
      {list?.servers.map((server) => (
        <McpServerCard key={server.name} server={server} />
      ))}
    </div>
  )
}

const statusText: Record<McpServerInfo['status'], string> = {
  configured: 'Not started',
  started: 'Tools listed',
  failed: 'Failed to start',
}

function McpServerCard({ server }: { server: McpServerInfo }) {
  const pill = server.status === 'started' ? 'stored' : server.status === 'failed' ? 'error' : 'none'
  return (
    <article className="provider-card" data-testid="mcp-server" data-server={server.name} aria-label={`MCP server ${server.name}`}>
      <header className="provider-card__head">
        <h3 className="provider-card__title">{server.name}</h3>
        <span className={`key-pill ${pill}`} data-testid="mcp-server-status">
          <span className="key-pill__dot" aria-hidden />
          {statusText[server.status]}
        </span>
      </header>
      <div className="mono small">
        {server.transport} · {server.target}
      </div>
      <div className="muted small">
        in {server.source}
        {server.profiles.length > 0 ? ` · used by ${server.profiles.join(', ')}` : ' · no profile lists it'}
      </div>
      {server.error && (
        <div className="callout error small" role="alert">
          {server.error}
        </div>
      )}
      {server.tools && (
        <ul className="mcp-tools" data-testid="mcp-tools">
          {server.tools.map((tool) => (
            <li key={tool.name}>
              <code>
                mcp__{server.name}__{tool.name}
              </code>
              {tool.description && <span className="muted small"> — {tool.description}</span>}
            </li>
          ))}
        </ul>
      )}
    </article>
  )
}
