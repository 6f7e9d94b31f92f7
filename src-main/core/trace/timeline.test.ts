import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TraceEvent } from './events'
import { emptyTimeline, foldTimeline, laneTreeOrder, timelineEnd } from './timeline'

const t0 = Date.parse('2025-03-01T10:00:00.000Z')
const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: 0,
  cache_write_tokens: 0,
  reasoning_tokens: 0,
})
const spawn = (child: string, description: string, callId: string) => ({
  call_id: callId,
  child_agent_id: child,
  profile: 'explore',
  description,
  task: `do ${description}`,
})

/** A job as the supervisor writes it: the root asks for two children (one queued), asks approval for a command, and ends. */
function jobEvents(): TraceEvent[] {
  let seq = 0
  const at = (second: number) => new Date(t0 + second * 1000).toISOString()
  const event = (
    second: number,
    type: string,
    agent: string | null,
    data: Record<string, unknown>,
    parent: string | null = null,
    depth: number | null = agent ? 0 : null,
  ) => ({ type, seq: ++seq, ts: at(second), job_id: 'job-1', agent_id: agent, parent_id: parent, depth, data }) as TraceEvent
  const child = (second: number, type: string, id: string, data: Record<string, unknown>) => event(second, type, id, data, 'root', 1)
  const agentStart = (label: string, profile: string) => ({
    label,
    profile,
    model: 'm',
    task: label,
    tools: [],
    max_steps: 10,
    context_token_budget: null,
    total_token_budget: null,
  })
  const end = (status: string) => ({
    status,
    terminal_reason: status,
    result: null,
    summary: '',
    usage: usage(0, 0),
    cost_usd: null,
    steps: 1,
    tool_usage: {},
    duration_ms: 1,
  })
  const llm = (tokens: number, cost: number | null, duration: number) => ({
    provider: 'scripted',
    model: 'm',
    usage: usage(tokens, 10),
    cost_usd: cost,
    duration_ms: duration,
    finish_reason: 'stop',
  })
  return [
    event(0, 'job.start', null, { task: 'survey', settings: {} }),
    event(0, 'agent.start', 'root', agentStart('root', 'general')),
    event(2, 'llm.call', 'root', llm(100, 0.01, 2000)),
    event(2, 'tool.call', 'root', { call_id: 'c1', name: 'task', arguments: {} }),
    event(2, 'tool.call', 'root', { call_id: 'c2', name: 'task', arguments: {} }),
    event(3, 'subagent.request', 'root', spawn('a', 'A', 'c1')),
    child(3, 'agent.start', 'a', agentStart('A', 'explore')),
    event(3, 'subagent.start', 'root', spawn('a', 'A', 'c1')),
    event(3, 'subagent.request', 'root', spawn('b', 'B', 'c2')),
    event(3, 'subagent.queued', 'root', { ...spawn('b', 'B', 'c2'), reason: '1 children already running' }),
    child(5, 'llm.call', 'a', llm(50, 0.005, 1500)),
    child(6, 'agent.end', 'a', end('completed')),
    child(6, 'agent.start', 'b', agentStart('B', 'explore')),
    event(6, 'subagent.start', 'root', spawn('b', 'B', 'c2')),
    event(6, 'tool.result', 'root', { call_id: 'c1', name: 'task', ok: true, output: 'x', truncated: false, duration_ms: 4000 }),
    child(8, 'tool.call', 'b', { call_id: 'r1', name: 'read_file', arguments: {} }),
    child(9, 'tool.result', 'b', {
      call_id: 'r1',
      name: 'read_file',
      ok: false,
      output: 'no such file',
      truncated: false,
      duration_ms: 1000,
    }),
    child(10, 'llm.call', 'b', llm(70, null, 1000)),
    child(10, 'agent.end', 'b', end('completed')),
    event(10, 'tool.result', 'root', { call_id: 'c2', name: 'task', ok: true, output: 'y', truncated: false, duration_ms: 8000 }),
    event(11, 'approval.request', 'root', { approval_id: 'ap1', tool: 'bash', command: 'rm notes.txt', reason: 'deletes files' }),
    event(14, 'approval.decision', 'root', { approval_id: 'ap1', decision: 'denied', by: 'user' }),
    event(15, 'llm.call', 'root', llm(200, 0.02, 1000)),
    event(15, 'agent.end', 'root', end('completed')),
    event(15, 'job.end', null, { status: 'completed', usage: usage(0, 0), cost_usd: 0.035 }),
  ]
}

const fold = (events: readonly TraceEvent[]) => {
  const timeline = emptyTimeline()
  foldTimeline(timeline, events)
  return timeline
}
const seconds = (ms: number | null) => (ms === null ? null : (ms - t0) / 1000)

describe('foldTimeline', () => {
  it('makes one lane per agent, in tree order, with model calls ending at their event and tool calls paired by call id', () => {
    const timeline = fold(jobEvents())
    expect(laneTreeOrder(timeline)).toEqual(['root', 'a', 'b'])
    expect(timeline.lanes.b).toMatchObject({ parent_id: 'root', depth: 1, label: 'B', profile: 'explore', status: 'completed' })
    expect(seconds(timeline.lanes.b!.first_ms)).toBe(3)
    expect(seconds(timeline.lanes.b!.start_ms)).toBe(6)
    const model = timeline.bars.root!.filter((bar) => bar.kind === 'model')
    // llm.call is stamped when the call returns: the bar is duration_ms long and ends at ts.
    expect(model.map((bar) => [seconds(bar.start_ms), seconds(bar.end_ms)])).toEqual([
      [0, 2],
      [14, 15],
    ])
    const read = timeline.bars.b!.find((bar) => bar.kind === 'tool')!
    expect([seconds(read.start_ms), seconds(read.end_ms), read.label, read.failed]).toEqual([8, 9, 'read_file', true])
    const tasks = timeline.bars.root!.filter((bar) => bar.kind === 'tool')
    expect(tasks.map((bar) => [seconds(bar.start_ms), seconds(bar.end_ms)])).toEqual([
      [2, 6],
      [2, 10],
    ])
  })

  it("draws a rate limit's tries as one wait bar, and a budget pause as another that the job's end closes", () => {
    const [jobStart, rootStart] = jobEvents()
    let seq = 2
    const at = (second: number, type: string, data: Record<string, unknown>, agent: string | null = 'root') =>
      ({ ...rootStart!, type, seq: ++seq, ts: new Date(t0 + second * 1000).toISOString(), agent_id: agent, data }) as TraceEvent
    const rateLimited = { phase: 'start', reason: 'rate_limit', message: '429 Too Many Requests', provider: 'openai', status: 429 }
    const timeline = fold([
      jobStart!,
      rootStart!,
      at(1, 'agent.wait', { ...rateLimited, attempt: 1 }),
      at(3, 'agent.wait', { ...rateLimited, attempt: 2 }),
      at(5, 'agent.wait', { phase: 'end', reason: 'rate_limit', outcome: 'retried', waited_ms: 4000 }),
      at(6, 'agent.wait', { phase: 'start', reason: 'job_budget', message: 'the job used its 8,000 tokens', until: null }),
      at(8, 'job.end', { status: 'cancelled', usage: usage(0, 0), cost_usd: null }, null),
    ])
    const bars = timeline.bars.root!.map((bar) => [bar.kind, seconds(bar.start_ms), seconds(bar.end_ms), bar.label])
    expect(bars).toEqual([
      ['rate_limit', 1, 5, '429 Too Many Requests'],
      ['budget', 6, 8, 'the job used its 8,000 tokens'],
    ])
  })

  it('shows a queued spawn on the child lane until it starts, and an approval until its decision', () => {
    const timeline = fold(jobEvents())
    const waits = Object.values(timeline.bars)
      .flat()
      .filter((bar) => bar.kind === 'queued' || bar.kind === 'approval' || bar.kind === 'held')
    expect(waits.map((bar) => [bar.kind, seconds(bar.start_ms), seconds(bar.end_ms), bar.agent_id, bar.failed])).toEqual([
      ['approval', 11, 14, 'root', true],
      ['queued', 3, 6, 'root', false],
    ])
    // The queued bar opens the parent's trace, where subagent.queued is recorded.
    const queued = timeline.bars.b!.find((bar) => bar.kind === 'queued')!
    expect(jobEvents().find((event) => event.seq === queued.seq)?.type).toBe('subagent.queued')
  })

  it('shows a held spawn, released into the queue, as two waits in a row; a cancelled one ends with its agent', () => {
    const events = jobEvents()
    const queuedAt = events.findIndex((event) => event.type === 'subagent.queued')
    const queued = events[queuedAt]!
    const held = { ...queued, type: 'subagent.held', data: { ...queued.data, reason: 'spawning is paused' } } as TraceEvent
    const renumber = (list: TraceEvent[]) => list.map((event, index) => ({ ...event, seq: index + 1 }))
    const released = fold(renumber([...events.slice(0, queuedAt), held, ...events.slice(queuedAt)]))
    expect(
      released.bars
        .b!.filter((bar) => bar.kind !== 'model' && bar.kind !== 'tool')
        .map((bar) => [bar.kind, seconds(bar.start_ms), seconds(bar.end_ms)]),
    ).toEqual([
      ['held', 3, 3],
      ['queued', 3, 6],
    ])
    const cancelled = {
      ...queued,
      type: 'agent.end',
      agent_id: 'b',
      parent_id: 'root',
      depth: 1,
      ts: '2025-03-01T10:00:04.000Z',
      data: { status: 'cancelled' },
    } as TraceEvent
    const never = fold(renumber([...events.slice(0, queuedAt), held, cancelled]))
    expect(never.bars.b!.map((bar) => [bar.kind, seconds(bar.end_ms)])).toEqual([['held', 4]])
    expect(never.lanes.b).toMatchObject({ status: 'cancelled', start_ms: null })
    expect(never.open).toEqual({ root: { 'tool\tc1': 1, 'tool\tc2': 2 } })
  })

  it('links each child from its parent at the task call to where its lane begins', () => {
    const timeline = fold(jobEvents())
    expect(timeline.links.map((link) => [link.parent_id, link.child_id, seconds(link.at_ms)])).toEqual([
      ['root', 'a', 2],
      ['root', 'b', 2],
    ])
    const events = jobEvents()
    expect(events.find((event) => event.seq === timeline.links[1]!.seq)).toMatchObject({ type: 'tool.call', data: { call_id: 'c2' } })
  })

  it('keeps a usage point per model call, and the job span', () => {
    const timeline = fold(jobEvents())
    expect(timeline.points.map((point) => [seconds(point.ms), point.agent_id, point.tokens, point.cost_usd])).toEqual([
      [2, 'root', 110, 0.01],
      [5, 'a', 60, 0.005],
      [10, 'b', 80, null],
      [15, 'root', 210, 0.02],
    ])
    expect([seconds(timeline.start_ms), seconds(timeline.end_ms), seconds(timelineEnd(timeline))]).toEqual([0, 15, 15])
  })

  it('runs a followed-up lane and the job again, its new calls on the same lane, to the next end', () => {
    const events = jobEvents()
    const last = events.at(-1)!
    const at = (second: number) => new Date(t0 + second * 1000).toISOString()
    const more = (second: number, type: string, agent: string | null, data: Record<string, unknown>) =>
      ({ ...last, seq: last.seq + second, ts: at(second), type, agent_id: agent, depth: agent ? 0 : null, data }) as TraceEvent
    const followed = fold([
      ...events,
      more(20, 'agent.resume', 'root', { by: 'user', text: 'and then?', history_messages: 6, previous_status: 'completed' }),
      more(22, 'llm.call', 'root', {
        provider: 'scripted',
        model: 'm',
        usage: usage(300, 10),
        cost_usd: null,
        duration_ms: 1000,
        finish_reason: 'stop',
      }),
    ])
    expect(followed.lanes.root).toMatchObject({ status: 'running', end_ms: null })
    expect(followed.end_ms).toBeNull()
    expect(followed.bars.root!.filter((bar) => bar.kind === 'model').map((bar) => seconds(bar.end_ms))).toEqual([2, 15, 22])
  })

  it('runs an interrupted job again once resumed: its continued lane, and a spawn queued again waits on its lane', () => {
    const events = jobEvents()
    const last = events.at(-1)!
    const at = (second: number) => new Date(t0 + second * 1000).toISOString()
    const more = (second: number, type: string, agent: string | null, data: Record<string, unknown>) =>
      ({ ...last, seq: last.seq + second, ts: at(second), type, agent_id: agent, depth: agent ? 0 : null, data }) as TraceEvent
    const resumed = fold([
      ...events,
      more(20, 'control', null, { action: 'resume_job', target: 'job-1', value: true, by: 'user' }),
      more(21, 'agent.restart', 'root', { cause: 'interrupted', from_step: 2, label: 'root' }),
      more(22, 'subagent.queued', 'root', { call_id: null, child_agent_id: 'b', profile: 'explore', description: 'B', task: 't' }),
    ])
    expect(resumed.end_ms).toBeNull()
    expect(resumed.lanes.root).toMatchObject({ status: 'running', end_ms: null })
    expect(resumed.lanes.b).toMatchObject({ status: 'waiting', end_ms: null })
    expect(resumed.bars.b!.filter((bar) => bar.kind === 'queued' && bar.end_ms === null)).toHaveLength(1)
    // A restart after a crash leaves an ended lane as it is.
    const crashed = fold([
      ...events,
      more(20, 'agent.restart', 'root', { cause: 'crashed', from_step: 2, restart: 1, restarts_allowed: 1 }),
    ])
    expect(crashed.lanes.root!.end_ms).not.toBeNull()
  })

  it('leaves a bar open while it runs, and ends it with the job', () => {
    const events = jobEvents()
    const cut = events.findIndex((event) => event.type === 'approval.decision')
    const running = fold(events.slice(0, cut))
    const approval = running.bars.root!.find((bar) => bar.kind === 'approval')!
    expect(approval.end_ms).toBeNull()
    expect(timelineEnd(running, t0 + 60_000)).toBe(t0 + 60_000)
    const job = events.at(-1)!
    foldTimeline(running, [{ ...job, seq: 999 }])
    expect(seconds(approval.end_ms)).toBe(15)
  })

  it('is the same whether folded at once or batch by batch, and skips what it has seen or another job', () => {
    const events = jobEvents()
    const whole = fold(events)
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: events.length }), { maxLength: 8 }), (cuts) => {
        const bounds = [0, ...[...cuts].sort((a, b) => a - b), events.length]
        const timeline = emptyTimeline()
        for (let index = 1; index < bounds.length; index++) foldTimeline(timeline, events.slice(bounds[index - 1], bounds[index]))
        // A batch that repeats what was applied (a reconnect) changes nothing.
        foldTimeline(timeline, events.slice(0, 5))
        expect(timeline).toEqual(whole)
      }),
    )
    const other = { ...events[1]!, seq: 1000, job_id: 'job-2' }
    const before = structuredClone(whole)
    foldTimeline(whole, [other])
    expect(whole).toEqual(before)
  })

  it('says when lanes change, so the renderer reorders only then', () => {
    const events = jobEvents()
    const timeline = emptyTimeline()
    expect(foldTimeline(timeline, events.slice(0, 2)).lanesChanged).toBe(true)
    expect(foldTimeline(timeline, events.slice(2, 5)).lanesChanged).toBe(false)
    expect(foldTimeline(timeline, events.slice(5, 7)).lanesChanged).toBe(true)
  })

  it('survives a JSON round trip (it crosses IPC and the WebSocket) and folds on from there', () => {
    const events = jobEvents()
    const half = JSON.parse(JSON.stringify(fold(events.slice(0, 12))))
    foldTimeline(half, events.slice(12))
    expect(half).toEqual(fold(events))
  })
})
