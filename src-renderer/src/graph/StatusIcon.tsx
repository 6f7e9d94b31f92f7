import type { AgentStatus } from '@core/trace/events'
import { agentStatusLook } from './status'

/** A status glyph, or a CSS spinner while the agent works. */
export function StatusIcon({ status }: { status: AgentStatus }) {
  const look = agentStatusLook[status]
  if (look.busy) return <span className={`spinner status-${status}`} aria-label={look.label} />
  return (
    <span className={`status-icon status-${status}`} aria-label={look.label}>
      {look.icon}
    </span>
  )
}
