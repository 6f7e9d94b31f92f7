import { isFinishedStatus, type TraceEvent } from '@core/trace/events'
import { isLiveStatus } from '@core/trace/statuses'
import { useVirtualizer } from '@tanstack/react-virtual'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { StatusIcon } from '../graph/StatusIcon'
import { useArbor, type ArborState } from '../store'
import { formatCost, formatTokens, shortId } from '../util/format'
import { taskBody } from './task-body'
import { projectInstructionsOf, projectInstructionsText } from './describe-event'
import { EventRow } from './EventRow'
import { SendBox } from './SendBox'
import { ChangesPanel } from '../changes/ChangesPanel'

function selectInspector(state: ArborState, agentId: string) {
  const inspector = state.inspectors.find((candidate) => candidate.agentId === agentId)
  const focus = state.inspectorFocus?.agentId === agentId ? state.inspectorFocus : null
  return {
    inspector,
    agent: state.tree.agents[agentId],
    // An imported job is read-only: nothing can be sent to its agents.
    readOnly: state.tree.jobId ? state.jobs[state.tree.jobId]?.imported === true : true,
    selected: state.selectedAgentId === agentId,
    focusSeq: focus?.seq ?? null,
    focusNonce: focus?.nonce ?? 0,
    changedFiles: state.changeCounts.byAgent[agentId] ?? 0,
    changesAsk: state.changesFocus?.agentId === agentId ? state.changesFocus : null,
  }
}

const nearBottomPx = 48
/** A summary line and a short body; rows are measured once drawn, so this only sizes the scrollbar until then. */
const estimatedRowPx = 56
/**
 * Rows drawn beyond each edge of the view. Few: each row measured above the view makes the
 * virtualizer re-lay out every row after it, which on a 100,000-row list is what a frame costs.
 */
const overscanRows = 6
const noEvents: TraceEvent[] = []

/**
 * One agent's trace: fetched on open, then tailed live; newest at the bottom. The list is
 * virtualized (only the rows in view are in the DOM, each measured once drawn), so an agent with
 * 100,000 events opens and scrolls like one with ten.
 */
export function Inspector({ agentId }: { agentId: string }) {
  const { inspector, agent, readOnly, selected, focusSeq, focusNonce, changedFiles, changesAsk } = useArbor(
    useShallow((state: ArborState) => selectInspector(state, agentId)),
  )
  // Trace or Changes: a tool call asked for (a diff's link, a timeline bar) shows the trace; Show changes the Changes.
  const [tab, setTab] = useState<'trace' | 'changes'>('trace')
  useEffect(() => {
    if (focusNonce > 0) setTab('trace')
  }, [focusNonce])
  useEffect(() => {
    if (changesAsk) setTab('changes')
  }, [changesAsk?.nonce])
  const scroller = useRef<HTMLDivElement>(null)
  const content = useRef<HTMLDivElement>(null)
  const stickToBottom = useRef(true)
  const lastScrollTop = useRef(0)
  const events = inspector?.events ?? noEvents
  const open = inspector !== undefined
  const shown = useMemo(() => events.filter(isShown), [events])
  // Sizes are kept by index (no getItemKey): the list grows at its end, and a key function would
  // run for every row of a 100,000-row list on each re-layout. Drawn rows are measured again anyway.
  const rows = useVirtualizer({
    count: shown.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimatedRowPx,
    overscan: overscanRows,
    paddingStart: 4,
    paddingEnd: 12,
  })

  const followTail = () => {
    const element = scroller.current
    if (element && stickToBottom.current) element.scrollTop = element.scrollHeight
  }
  useLayoutEffect(followTail, [shown])
  // A timeline bar asked for one event: scroll it into view (once it is loaded) and stop following the tail.
  const focusIndex = focusSeq === null ? -1 : shown.findIndex((event) => event.seq === focusSeq)
  const focusLoaded = focusIndex >= 0
  useLayoutEffect(() => {
    if (!focusLoaded) return
    stickToBottom.current = false
    rows.scrollToIndex(focusIndex, { align: 'center' })
    // Only a new ask (or the event arriving) scrolls; later pages must not pull the view back.
  }, [focusLoaded, focusNonce])
  // Rows are measured as they are drawn, and text re-wraps when the dock changes width: the list's
  // height changes, so stay at the bottom if the user was there.
  useEffect(() => {
    if (!content.current) return
    const observer = new ResizeObserver(followTail)
    observer.observe(content.current)
    return () => observer.disconnect()
  }, [open])

  if (!inspector) return null
  // At the bottom: follow the tail. Moved up: stop. A move down short of the bottom changes
  // nothing: that is the virtualizer keeping the view still while rows above it are measured.
  const onScroll = () => {
    const element = scroller.current
    if (!element) return
    if (element.scrollHeight - element.scrollTop - element.clientHeight < nearBottomPx) stickToBottom.current = true
    else if (element.scrollTop < lastScrollTop.current) stickToBottom.current = false
    lastScrollTop.current = element.scrollTop
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
      {agent?.task && (
        <div className="inspector__task" data-testid="inspector-task" title={agent.task}>
          {taskBody(agent.label, agent.task)}
        </div>
      )}
      {instructions && (
        <div
          className="inspector__instructions"
          data-testid="inspector-instructions"
          title={`${instructions.file} from the project folder went into this agent's system prompt${instructions.truncated ? ', cut to fit' : ''}`}
        >
          {projectInstructionsText(instructions)}
        </div>
      )}
      {agent && (
        <div className="inspector__tabs" role="tablist" aria-label="Agent views">
          <button
            type="button"
            role="tab"
            aria-selected={tab === 'trace'}
            className={`inspector__tab${tab === 'trace' ? ' active' : ''}`}
            data-testid="inspector-tab-trace"
            onClick={() => setTab('trace')}
          >
            Trace
          </button>
          <button
            type="button"
            role="tab"
            aria-selected={tab === 'changes'}
            className={`inspector__tab${tab === 'changes' ? ' active' : ''}`}
            data-testid="inspector-tab-changes"
            onClick={() => setTab('changes')}
          >
            Changes{changedFiles > 0 ? ` (${changedFiles})` : ''}
          </button>
        </div>
      )}
      {agent && tab === 'changes' && <ChangesPanel jobId={agent.job_id} agentId={agentId} initialPath={changesAsk?.path ?? null} />}
      {tab === 'trace' && inspector.loading && inspector.events.length === 0 && <div className="inspector__note">Loading trace…</div>}
      {inspector.error && <div className="inspector__note error">{inspector.error}</div>}
      {tab === 'trace' && !inspector.loading && !inspector.error && inspector.events.length === 0 && (
        <div className="inspector__note">No events yet.</div>
      )}
      <div
        className="inspector__events"
        ref={scroller}
        onScroll={onScroll}
        data-testid="inspector-events"
        data-count={shown.length}
        hidden={tab === 'changes'}
      >
        <div className="inspector__rows" ref={content} style={{ height: rows.getTotalSize() }}>
          {rows.getVirtualItems().map((row) => {
            const event = shown[row.index]!
            return (
              <div
                key={event.seq}
                className="inspector__row"
                data-index={row.index}
                ref={rows.measureElement}
                style={{ transform: `translateY(${row.start}px)` }}
              >
                <EventRow event={event} highlighted={event.seq === focusSeq} />
              </div>
            )
          })}
        </div>
      </div>
      {agent && !readOnly && isLiveStatus(agent.status) && <SteerBox agentId={agentId} />}
      {agent && !readOnly && isFinishedStatus(agent.status) && <FollowUpBox key={agentId} jobId={agent.job_id} agentId={agentId} />}
    </section>
  )
}

/**
 * A message to this running agent: it reaches the agent at its next step (after the model call
 * or tool call under way), marked as yours, and shows in its trace when it does.
 */
function SteerBox({ agentId }: { agentId: string }) {
  return (
    <SendBox
      kind="steer"
      placeholder="Message this agent (it reads it before its next step)"
      action="Send"
      pendingText={(count) => `${count} waiting for the agent’s next step…`}
      send={(text) => useArbor.getState().steerAgent(agentId, text)}
      extra={<WrapUpButton agentId={agentId} />}
    />
  )
}

/**
 * A follow-up to this agent, which ended: it goes on from its whole conversation with the message
 * (a child's new result reaches its parent if that still runs).
 */
function FollowUpBox({ jobId, agentId }: { jobId: string; agentId: string }) {
  return (
    <SendBox
      kind="agent-follow-up"
      placeholder="Follow up: this agent goes on from where it ended"
      action="Continue"
      pendingText={() => 'Continuing…'}
      send={(text) => useArbor.getState().followUp(jobId, text, { agentId })}
    />
  )
}

/**
 * Wrap up: the agent and its branch are told at their next step to finish and report, within 2
 * steps (then they end as killed). Once asked, it says so instead.
 */
function WrapUpButton({ agentId }: { agentId: string }) {
  const wrappingUp = useArbor((state) => state.tree.wrappingUp[agentId] === true)
  return (
    <button
      className="button"
      type="button"
      data-testid="wrap-up"
      disabled={wrappingUp}
      title="Tell this agent and its branch to finish now and report what they have, within 2 steps (W)"
      onClick={() => void useArbor.getState().wrapUpAgent(agentId)}
    >
      {wrappingUp ? 'Wrapping up…' : 'Wrap up'}
    </button>
  )
}

/** A tool message repeats its `tool.result` (same output, same call id): the trace keeps both, the list shows one. */
const isShown = (event: TraceEvent): boolean => !(event.type === 'message' && event.data.role === 'tool')
