import { describe, expect, it } from 'vitest'
import { eventTypes, type TraceEvent } from './events'
import type { AgentNode, JobProgress } from './model'
import { agentProgressKeys, changesJob, createsAgent, jobBudgetsSetBy, reduceAgents, reduceJob, updateAgent } from './projection'
import { emptyUsage } from './usage'

const job: JobProgress = {
  id: 'job_1',
  status: 'running',
  ended_at: null,
  auto_approve: false,
  spawn_paused: false,
  usage: emptyUsage(),
  cost_usd: null,
}

/** An event of `type` with `data`, the envelope filled in. */
const eventOf = (type: string, data: Record<string, unknown>): TraceEvent =>
  ({ type, seq: 1, ts: '2026-12-01T10:00:00.000Z', job_id: job.id, agent_id: 'agent_1', parent_id: null, depth: 0, data }) as TraceEvent

describe('changesJob', () => {
  // The store's projector skips reduceJob for every event changesJob says no to.
  it('is false only for event types reduceJob returns the job itself for', () => {
    const usage = { ...emptyUsage(), input_tokens: 5 }
    const dataThatChangesAJob: Record<string, unknown> = {
      status: 'completed',
      usage,
      cost_usd: 0.5,
      action: 'pause',
      target: job.id,
      value: true,
    }
    for (const type of eventTypes) {
      const event = eventOf(type, dataThatChangesAJob)
      if (changesJob(event)) expect(reduceJob(job, event), type).not.toBe(job)
      else expect(reduceJob(job, event), type).toBe(job)
    }
  })

  it('says yes to a job.end, a control and an agent.resume only', () => {
    expect(eventTypes.filter((type) => changesJob(eventOf(type, {}))).sort()).toEqual(['agent.resume', 'control', 'job.end'])
  })

  it('a follow-up opens an ended job again, and its node runs again with its totals', () => {
    const ended = reduceJob(job, eventOf('job.end', { status: 'completed', reason: 'completed', usage: emptyUsage(), cost_usd: null }))
    expect(ended).toMatchObject({ status: 'completed', end_reason: 'completed', ended_at: '2026-12-01T10:00:00.000Z' })
    const resume = eventOf('agent.resume', { by: 'user', text: 'and then?', history_messages: 4, previous_status: 'completed' })
    const reopened = reduceJob(ended, resume)
    expect(reopened).toMatchObject({ status: 'running', ended_at: null })
    expect(reopened).not.toHaveProperty('end_reason')
  })

  it("an interrupted job resumed (control resume_job) runs again; a pause control or another job's leaves it ended", () => {
    const ended = reduceJob(job, eventOf('job.end', { status: 'interrupted', usage: emptyUsage(), cost_usd: null }))
    expect(ended.status).toBe('interrupted')
    const resumed = reduceJob(ended, eventOf('control', { action: 'resume_job', target: job.id, value: true, by: 'user' }))
    expect(resumed).toMatchObject({ status: 'running', ended_at: null })
    expect(reduceJob(ended, eventOf('control', { action: 'resume_job', target: 'job_other', value: true, by: 'user' }))).toBe(ended)
    expect(reduceJob(ended, eventOf('control', { action: 'resume', target: job.id, value: false, by: 'user' })).status).toBe('interrupted')
  })
})

describe('budgets', () => {
  const withSettings = { ...job, settings: { job_token_budget: 6000, job_cost_budget: 2, model: 'm' } }
  const setBudget = (target: string, value: unknown) =>
    eventOf('control', { action: 'set_budget', target, value, previous: null, by: 'user' })

  it("a set_budget on the job puts its caps in the settings of a job that carries them (the toolbar's meter)", () => {
    const raised = reduceJob(withSettings, { ...setBudget(job.id, { tokens: 50_000, cost_usd: null }), agent_id: null })
    expect(raised.settings).toEqual({ job_token_budget: 50_000, job_cost_budget: null, model: 'm' })
    expect(jobBudgetsSetBy({ ...setBudget(job.id, { tokens: 50_000, cost_usd: 3 }), agent_id: null })).toEqual({
      job_token_budget: 50_000,
      job_cost_budget: 3,
    })
    // Aimed at an agent, it is the agent's branch: the job keeps its caps.
    expect(reduceJob(withSettings, setBudget('agent_1', { tokens: 10, cost_usd: null }))).toBe(withSettings)
  })

  it('a follow-up that raised the caps (agent.resume budgets) shows them too, and only those it names', () => {
    const resume = eventOf('agent.resume', {
      by: 'user',
      text: 'go on',
      history_messages: 4,
      previous_status: 'completed',
      budgets: { job_token_budget: 90_000 },
    })
    expect(reduceJob(withSettings, resume).settings).toEqual({ job_token_budget: 90_000, job_cost_budget: 2, model: 'm' })
  })

  it('a set_budget on an agent gives its node a branch meter; caps of null take it away', () => {
    const node = { id: 'agent_1', status: 'running' } as unknown as AgentNode
    updateAgent(node, setBudget('agent_1', { tokens: 4000, cost_usd: null }))
    expect(node.branch_budget).toEqual({ tokens: 4000, cost_usd: null })
    updateAgent(node, setBudget('agent_2', { tokens: 1, cost_usd: null }))
    expect(node.branch_budget).toEqual({ tokens: 4000, cost_usd: null })
    updateAgent(node, setBudget('agent_1', { tokens: null, cost_usd: null }))
    expect(node).not.toHaveProperty('branch_budget')
  })
})

describe('updateAgent', () => {
  // The store writes only agentProgressKeys of an agent no event of the batch created.
  it('changes no field outside agentProgressKeys, for any event type', () => {
    const node: AgentNode = {
      id: 'agent_1',
      job_id: job.id,
      parent_id: null,
      depth: 0,
      label: 'root',
      profile: 'general',
      model: 'model-a',
      task: 'a task',
      status: 'running',
      terminal_reason: null,
      current_tool: null,
      steps: 3,
      max_steps: 10,
      total_token_budget: 1000,
      usage: emptyUsage(),
      cost_usd: null,
      created_at: '2026-12-01T09:00:00.000Z',
      started_at: '2026-12-01T09:00:01.000Z',
      ended_at: null,
      last_event_at: '2026-12-01T09:00:02.000Z',
    }
    // Data with every field an event of any type could carry into a node, set to a new value.
    const data: Record<string, unknown> = {
      status: 'failed',
      terminal_reason: 'error',
      usage: { ...emptyUsage(), output_tokens: 7 },
      cost_usd: 0.25,
      steps: 9,
      name: 'bash',
      label: 'changed',
      profile: 'explore',
      model: 'model-b',
      task: 'another task',
      max_steps: 99,
      total_token_budget: 5,
      parent_id: 'agent_0',
      depth: 4,
      phase: 'start',
      reason: 'rate_limit',
      // A set_budget on the node's branch.
      action: 'set_budget',
      target: 'agent_1',
      value: { tokens: 5000, cost_usd: null },
    }
    const changed = new Set<string>()
    for (const type of eventTypes) {
      const event = eventOf(type, data)
      if (createsAgent(event)) continue
      for (const status of ['running', 'waiting_approval'] as const) {
        const copy = { ...node, status }
        updateAgent(copy, event)
        for (const key of new Set([...Object.keys(node), ...Object.keys(copy)]) as Set<keyof AgentNode>)
          if (copy[key] !== (key === 'status' ? status : node[key])) changed.add(key)
      }
    }
    expect([...changed].sort()).toEqual([...agentProgressKeys].sort())
  })

  it('an agent.resume runs an ended node again and keeps what it spent', () => {
    const usage = { ...emptyUsage(), input_tokens: 40 }
    const node = {
      id: 'agent_1',
      status: 'completed',
      terminal_reason: 'completed',
      ended_at: 'then',
      steps: 3,
      usage,
      current_tool: null,
    } as unknown as AgentNode
    updateAgent(node, eventOf('agent.resume', { by: 'user', text: 'more', history_messages: 4, previous_status: 'completed' }))
    expect(node).toMatchObject({ status: 'running', terminal_reason: null, ended_at: null, steps: 3, usage })
  })

  it('an agent.restart after an interruption runs the node the sweep ended again; after a crash it only clears its tool', () => {
    const usage = { ...emptyUsage(), input_tokens: 40 }
    const swept = { status: 'failed', terminal_reason: 'crashed', ended_at: 'then', steps: 3, usage, current_tool: 'bash' }
    const node = { ...swept } as unknown as AgentNode
    updateAgent(node, eventOf('agent.restart', { cause: 'interrupted', from_step: 3 }))
    expect(node).toMatchObject({ status: 'running', terminal_reason: null, ended_at: null, current_tool: null, steps: 3, usage })
    const running = { ...swept, status: 'running', terminal_reason: null, ended_at: null } as unknown as AgentNode
    updateAgent(running, eventOf('agent.restart', { cause: 'crashed', from_step: 3, restart: 1, restarts_allowed: 1 }))
    expect(running).toMatchObject({ status: 'running', current_tool: null })
  })

  it('a spawn the sweep cancelled, queued or held again, is a ghost again', () => {
    const cancelled = { id: 'agent_2', status: 'cancelled', terminal_reason: 'cancelled', ended_at: 'then' } as unknown as AgentNode
    const data = { call_id: 'c1', child_agent_id: 'agent_2', profile: 'explore', description: 'q', task: 't' }
    for (const type of ['subagent.queued', 'subagent.held'] as const) {
      const [again] = reduceAgents(eventOf(type, { ...data, reason: 'resumed' }), () => cancelled)
      expect(again).toMatchObject({ status: type === 'subagent.held' ? 'held' : 'queued', terminal_reason: null, ended_at: null })
    }
  })
})

describe('agent.wait', () => {
  const running = { id: 'agent_1', status: 'running', current_tool: null, terminal_reason: null } as unknown as AgentNode
  const at = (event: TraceEvent, ts: string): TraceEvent => ({ ...event, ts })

  it('shows a rate limit as rate_limited with its message and next try, and its end as running again', () => {
    const node = { ...running }
    const start = { phase: 'start', reason: 'rate_limit', message: '429 slow down', until: '2026-12-01T10:00:30.000Z', attempt: 1 }
    updateAgent(node, at(eventOf('agent.wait', start), '2026-12-01T10:00:00.000Z'))
    expect(node).toMatchObject({
      status: 'rate_limited',
      wait: { reason: 'rate_limit', since: '2026-12-01T10:00:00.000Z', until: '2026-12-01T10:00:30.000Z', message: '429 slow down' },
    })
    // The next try of the same wait moves `until` on and keeps when it began.
    updateAgent(node, at(eventOf('agent.wait', { ...start, until: '2026-12-01T10:01:30.000Z', attempt: 2 }), '2026-12-01T10:00:31.000Z'))
    expect(node.wait).toMatchObject({ since: '2026-12-01T10:00:00.000Z', until: '2026-12-01T10:01:30.000Z' })
    updateAgent(node, eventOf('agent.wait', { phase: 'end', reason: 'rate_limit', outcome: 'retried', waited_ms: 31_000 }))
    expect(node.status).toBe('running')
    expect(node).not.toHaveProperty('wait')
  })

  it('shows a budget as paused until the user acts, and an agent.end ends the wait', () => {
    const node = { ...running }
    updateAgent(
      node,
      eventOf('agent.wait', { phase: 'start', reason: 'job_budget', message: 'the job used 8,000 of 8,000 tokens', until: null }),
    )
    expect(node).toMatchObject({ status: 'paused', wait: { reason: 'job_budget', until: null } })
    updateAgent(node, eventOf('agent.end', { status: 'killed', terminal_reason: 'killed', usage: emptyUsage(), cost_usd: null, steps: 2 }))
    expect(node.status).toBe('killed')
    expect(node).not.toHaveProperty('wait')
  })

  it('leaves an ended node as it ended, and an end for another reason changes nothing', () => {
    const ended = { ...running, status: 'completed' } as AgentNode
    updateAgent(ended, eventOf('agent.wait', { phase: 'start', reason: 'rate_limit', message: 'late' }))
    expect(ended.status).toBe('completed')
    const paused = { ...running }
    updateAgent(paused, eventOf('agent.wait', { phase: 'start', reason: 'branch_budget', message: 'branch cap' }))
    updateAgent(paused, eventOf('agent.wait', { phase: 'end', reason: 'rate_limit', outcome: 'retried' }))
    expect(paused).toMatchObject({ status: 'paused', wait: { reason: 'branch_budget' } })
  })
})

describe("a held spawn's edited prompt", () => {
  const ghost: AgentNode = {
    id: 'agent_1',
    job_id: job.id,
    parent_id: 'agent_0',
    depth: 1,
    label: 'survey',
    profile: 'explore',
    model: null,
    task: 'the parent’s prompt',
    status: 'held',
    terminal_reason: null,
    current_tool: null,
    steps: 0,
    max_steps: null,
    total_token_budget: null,
    usage: emptyUsage(),
    cost_usd: null,
    created_at: '2026-12-01T09:00:00.000Z',
    started_at: null,
    ended_at: null,
    last_event_at: '2026-12-01T09:00:00.000Z',
  }
  const edit = eventOf('control', { action: 'edit_spawn', target: 'agent_1', value: 'the user’s prompt', previous: ghost.task, by: 'user' })

  it("becomes the node's task, through the path that writes the whole row", () => {
    expect(createsAgent(edit)).toBe(true)
    expect(reduceAgents(edit, () => ghost)).toEqual([{ ...ghost, task: 'the user’s prompt', last_event_at: edit.ts }])
  })

  it('leaves the node as it was for any other control, and for an edit of no agent known', () => {
    const kill = eventOf('control', { action: 'kill', target: 'agent_1', value: true, by: 'user' })
    expect(createsAgent(kill)).toBe(false)
    expect(reduceAgents(kill, () => ghost)[0]?.task).toBe(ghost.task)
    expect(reduceAgents(edit, () => undefined)).toEqual([])
  })
})

describe('worktree events', () => {
  // The node's worktree (branch, merged or not) is read from these events (getTree's `worktrees`), not projected into the node.
  it('create no agent, change no job and only touch the last event time of their agent', () => {
    for (const action of ['created', 'committed', 'merged', 'conflict', 'discarded', 'removed']) {
      const event = eventOf('worktree', { action, branch: 'arbor/job-1/x-abc123', path: '/repo/.git/arbor/worktrees/job-1/x-abc123' })
      expect(createsAgent(event)).toBe(false)
      expect(changesJob(event)).toBe(false)
      expect(reduceAgents(event, () => undefined)).toEqual([])
    }
  })
})
