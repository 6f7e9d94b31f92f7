import { useEffect, useState } from 'react'
import type { AgentWait } from '@core/trace/model'
import { agentStatusLook } from './status'
import type { AgentStatus } from '@core/trace/statuses'

/** Seconds until `until`, counted down once a second while the node shows it. */
function useSecondsLeft(until: string | null): number | null {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (until === null) return
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [until])
  if (until === null) return null
  const at = Date.parse(until)
  return Number.isFinite(at) ? Math.max(0, Math.ceil((at - now) / 1000)) : null
}

/**
 * A live agent held where it was (`agent.wait`): what it waits for, what the provider or the cap
 * said, and for a rate limit the countdown to its next try. The controls (Retry now, Raise to…)
 * are in the node menu and beside the budget meter.
 */
export function WaitLine({ status, wait }: { status: AgentStatus; wait: AgentWait }) {
  const secondsLeft = useSecondsLeft(wait.until)
  return (
    <span className={`agent-node__wait state status-text-${status}`} data-testid="node-wait" data-reason={wait.reason} title={wait.message}>
      <span>
        {agentStatusLook[status].icon} {agentStatusLook[status].label}
        {secondsLeft !== null ? ` · ${secondsLeft} s` : ''}
      </span>
      {wait.message && <span className="wait-message">{wait.message}</span>}
    </span>
  )
}
