import type { TraceEvent } from '../../../src-main/core/trace/events'
import { useEffect, useLayoutEffect, useRef } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { StatusIcon } from '../graph/StatusIcon'
import { useArbor, type ArborState } from '../store'
import { formatCost, formatTokens, shortId } from '../util/format'
import { projectInstructionsOf, projectInstructionsText } from './describe-event'
import { EventRow } from './EventRow'

function selectInspector(state: ArborState, agentId: string) {
  const inspector = state.inspectors.find((candidate) => candidate.agentId === agentId)
  const focus = state.inspectorFocus?.agentId === agentId ? state.inspectorFocus : null
  return { inspector, agent: state.tree.agents[agentId], selected: state.selectedAgentId === agentId, focusSeq: focus?.seq ?? null, focusNonce: focus?.nonce ?? 0 }
}

const nearBottomPx = 48

/** One agent's trace: fetched on open, then tailed live; newest at the bottom. */
export function Inspector({ agentId }: { agentId: string }) {
  const { inspector, agent, selected, focusSeq, focusNonce } = useArbor(useShallow((state: ArborState) => selectInspector(state, agentId)))
  const scroller = useRef<HTMLDivElement>(null)
  const content = useRef<HTMLDivElement>(null)
  const stickToBottom = useRef(true)
  const events = inspector?.events
  const open = inspector !== undefined

  const followTail = () => {
    const element = scroller.current
    if (element && stickToBottom.current) element.scrollTop = element.scrollHeight
  }
  useLayoutEffect(followTail, [events])
  // A timeline bar asked for one event: scroll it into view (once it is loaded) and stop following the tail.
  const focusedRow = focusSeq !== null && events?.some((event) => event.seq === focusSeq)
  useLayoutEffect(() => {
    if (!focusedRow) return
    stickToBottom.current = false
    content.current?.querySelector('.event-row.highlighted')?.scrollIntoView({ block: 'center' })
  }, [focusedRow, focusNonce])
  // Text re-wraps when the dock changes width: stay at the bottom if the user was there.
  useEffect(() => {
    if (!content.current) return
    const observer = new ResizeObserver(followTail)
    observer.observe(content.current)
    return () => observer.disconnect()
  }, [open])

  if (!inspector) return null
  const onScroll = () => {
    const element = scroller.current
    if (element) stickToBottom.current = element.scrollHeight - element.scrollTop - element.clientHeight < nearBottomPx
  }
  const tokens = agent ? agent.usage.input_tokens + agent.usage.output_tokens : null
  // The root's system prompt took in the project's AGENTS.md / CLAUDE.md: say which, and how much.
  const instructions =
    agent?.parent_id === null ? projectInstructionsOf(inspector.events.find((event) => event.type === 'agent.start')) : null

  return (
    <section className={`inspector${selected ? ' selected' : ''}`} data-testid="inspector" data-agent-id={agentId}>
      <header className="inspector__head">
        {agent && <StatusIcon status={agent.status} />}
        <div className="inspector__title">
          <span className="inspector__label">{agent?.label ?? shortId(agentId)}</span>
          <span className="inspector__sub">
            {agent ? `${agent.profile} · ${agent.model ?? '—'} · d${agent.depth}` : 'agent of another job'} ·{' '}
            <span title={agentId}>{shortId(agentId)}</span>
          </span>
        </div>
        {agent && (
          <span className="inspector__usage">
            {formatTokens(tokens ?? 0)} tok{agent.cost_usd !== null ? ` · ${formatCost(agent.cost_usd)}` : ''}
          </span>
        )}
        <button
          className="icon-button"
          title="Close"
          aria-label="Close inspector"
          onClick={() => useArbor.getState().closeInspector(agentId)}
        >
          ×
        </button>
      </header>
      {agent?.task && <div className="inspector__task" title={agent.task}>{agent.task}</div>}
      {instructions && (
        <div
          className="inspector__instructions"
          data-testid="inspector-instructions"
          title={`${instructions.file} from the project folder went into this agent's system prompt${instructions.truncated ? ', cut to fit' : ''}`}
        >
          {projectInstructionsText(instructions)}
        </div>
      )}
      <div className="inspector__events" ref={scroller} onScroll={onScroll}>
        <div ref={content}>
          {inspector.loading && inspector.events.length === 0 && <div className="inspector__note">Loading trace…</div>}
          {inspector.error && <div className="inspector__note error">{inspector.error}</div>}
          {!inspector.loading && !inspector.error && inspector.events.length === 0 && (
            <div className="inspector__note">No events yet.</div>
          )}
          {inspector.events.filter(isShown).map((event) => (
            <EventRow key={event.seq} event={event} highlighted={event.seq === focusSeq} />
          ))}
        </div>
      </div>
    </section>
  )
}

/** A tool message repeats its `tool.result` (same output, same call id): the trace keeps both, the list shows one. */
const isShown = (event: TraceEvent): boolean => !(event.type === 'message' && event.data.role === 'tool')
