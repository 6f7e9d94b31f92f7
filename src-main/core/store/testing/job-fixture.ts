import { newEvent, type EventData, type EventType, type NewTraceEvent } from '../../trace/events'
import type { Job } from '../../trace/model'
import { emptyUsage, type Usage } from '../../trace/usage'

/** A clock that starts at a fixed instant and advances one second per call. */
export function fixedClock(start = '2025-03-01T10:00:00.000Z'): () => string {
  let time = Date.parse(start)
  return () => {
    const now = new Date(time).toISOString()
    time += 1000
    return now
  }
}

export const jobId = 'job-1'
export const rootId = 'agent-root'
export const childId = 'agent-child'

export function sampleJob(overrides: Partial<Job> = {}): Job {
  return {
    id: jobId,
    project: '/projects/demo',
    task: 'Describe the project layout',
    settings: {
      provider: 'scripted',
      model: 'scripted-main',
      light_model: null,
      profile: 'general',
      max_depth: 2,
      max_concurrent_children: 3,
      job_token_budget: null,
      job_cost_budget: null,
    },
    status: 'running',
    created_at: '2025-03-01T09:59:59.000Z',
    ended_at: null,
    auto_approve: false,
    subagent_approvals: 'deny',
    spawn_paused: false,
    usage: emptyUsage(),
    cost_usd: null,
    ...overrides,
  }
}

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0, reasoning = 0): Usage => ({
  input_tokens: input,
  output_tokens: output,
  cache_read_tokens: cacheRead,
  cache_write_tokens: cacheWrite,
  reasoning_tokens: reasoning,
})

export const rootCalls: [Usage, Usage] = [usage(1200, 80, 1000), usage(1500, 200, 1200)]
export const childCalls: [Usage] = [usage(800, 120, 0, 600, 40)]
export const rootUsage = usage(2700, 280, 2200)
export const childUsage = usage(800, 120, 0, 600, 40)
export const jobUsage = usage(3500, 400, 2200, 600, 40)

/**
 * A small, realistic job: the root delegates one child, which lists files and reports back.
 * Costs are binary fractions so sums are exact.
 */
export function sampleJobEvents(
  job: Job = sampleJob(),
  now = fixedClock(),
  ids: { root: string; child: string } = { root: rootId, child: childId },
): NewTraceEvent[] {
  const jobEvent = <T extends EventType>(type: T, data: EventData<T>): NewTraceEvent =>
    newEvent(type, { ts: now(), job_id: job.id, agent_id: null, parent_id: null, depth: null }, data)
  const root = <T extends EventType>(type: T, data: EventData<T>): NewTraceEvent =>
    newEvent(type, { ts: now(), job_id: job.id, agent_id: ids.root, parent_id: null, depth: 0 }, data)
  const child = <T extends EventType>(type: T, data: EventData<T>): NewTraceEvent =>
    newEvent(type, { ts: now(), job_id: job.id, agent_id: ids.child, parent_id: ids.root, depth: 1 }, data)
  const spawn = {
    call_id: 'call-1',
    child_agent_id: ids.child,
    profile: 'explore',
    description: 'map the repo',
    task: 'List the top-level modules',
  }
  const budgets = { context_token_budget: 100_000, total_token_budget: 500_000 }
  return [
    jobEvent('job.start', { task: job.task, settings: job.settings }),
    root('agent.start', {
      profile: 'general',
      model: 'scripted-main',
      task: job.task,
      label: 'root',
      tools: ['task', 'read_file'],
      max_steps: 20,
      ...budgets,
    }),
    root('message', { role: 'user', content: job.task }),
    root('llm.call', {
      provider: 'scripted',
      model: 'scripted-main',
      usage: rootCalls[0],
      cost_usd: 0.25,
      duration_ms: 40,
      finish_reason: 'tool_calls',
    }),
    root('message', {
      role: 'assistant',
      content: '',
      tool_calls: [{ id: 'call-1', name: 'task', arguments: '{"description":"map the repo"}' }],
    }),
    root('subagent.request', spawn),
    root('subagent.queued', spawn),
    child('agent.start', {
      profile: 'explore',
      model: 'scripted-light',
      task: spawn.task,
      label: 'map the repo',
      tools: ['list_files'],
      max_steps: 10,
      ...budgets,
    }),
    root('subagent.start', spawn),
    child('tool.call', { call_id: 'tc-1', name: 'list_files', arguments: { path: '.' } }),
    child('tool.result', { call_id: 'tc-1', name: 'list_files', ok: true, output: 'src/\ndocs/', truncated: false, duration_ms: 3 }),
    child('llm.call', {
      provider: 'scripted',
      model: 'scripted-light',
      usage: childCalls[0],
      cost_usd: 0.125,
      duration_ms: 30,
      finish_reason: 'stop',
    }),
    child('agent.end', {
      status: 'completed',
      terminal_reason: 'completed',
      result: 'src and docs',
      summary: 'two folders',
      usage: childUsage,
      cost_usd: 0.125,
      steps: 1,
      tool_usage: { list_files: 1 },
      duration_ms: 5000,
    }),
    root('subagent.end', {
      ...spawn,
      envelope: {
        status: 'completed',
        profile: 'explore',
        agent_id: ids.child,
        summary: 'two folders',
        result: 'src and docs',
        terminal_reason: 'completed',
        stats: {
          steps: 1,
          tool_calls: 1,
          input_tokens: 800,
          output_tokens: 120,
          cost_usd: 0.125,
          model: 'scripted-light',
          duration_ms: 5000,
        },
      },
    }),
    root('message', { role: 'tool', content: '{"status":"completed"}', tool_call_id: 'call-1' }),
    root('llm.call', {
      provider: 'scripted',
      model: 'scripted-main',
      usage: rootCalls[1],
      cost_usd: 0.5,
      duration_ms: 50,
      finish_reason: 'stop',
    }),
    root('agent.end', {
      status: 'completed',
      terminal_reason: 'completed',
      result: 'A small project',
      summary: 'done',
      usage: rootUsage,
      cost_usd: 0.75,
      steps: 2,
      tool_usage: { task: 1 },
      duration_ms: 15000,
    }),
    jobEvent('job.end', { status: 'completed', usage: jobUsage, cost_usd: 0.875 }),
  ]
}
