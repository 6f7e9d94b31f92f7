import type { AgentStatus } from '@core/trace/events'

export interface StatusLook {
  icon: string
  label: string
  /** Shows a spinner instead of the icon. */
  busy: boolean
  /** Drawn as a ghost node: a spawn that has not started. */
  ghost: boolean
}

export const agentStatusLook: Record<AgentStatus, StatusLook> = {
  held: { icon: '‖', label: 'held', busy: false, ghost: true },
  queued: { icon: '⋯', label: 'queued', busy: false, ghost: true },
  running: { icon: '', label: 'running', busy: true, ghost: false },
  waiting_approval: { icon: '', label: 'waiting for you', busy: true, ghost: false },
  rate_limited: { icon: '◔', label: 'waiting: rate limited', busy: false, ghost: false },
  paused: { icon: '‖', label: 'paused: budget', busy: false, ghost: false },
  completed: { icon: '✓', label: 'completed', busy: false, ghost: false },
  partial: { icon: '◐', label: 'partial', busy: false, ghost: false },
  failed: { icon: '✕', label: 'failed', busy: false, ghost: false },
  killed: { icon: '⊘', label: 'killed', busy: false, ghost: false },
  cancelled: { icon: '–', label: 'cancelled', busy: false, ghost: false },
}

/** Status colours for places CSS cannot reach (the minimap); keep in step with styles.css. */
export const agentStatusColor: Record<AgentStatus, string> = {
  held: '#5b6472',
  queued: '#5b6472',
  running: '#3b82f6',
  waiting_approval: '#f59e0b',
  rate_limited: '#f59e0b',
  paused: '#a855f7',
  completed: '#22c55e',
  partial: '#14b8a6',
  failed: '#ef4444',
  killed: '#7f1d1d',
  cancelled: '#6b7280',
}
