import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { AgentNode } from '../trace/model'
import { openDatabase } from './database'
import { getAgent, getAgents, getJob, getJobUsage } from './queries'
import { childId, childUsage, fixedClock, jobId, jobUsage, rootId, rootUsage, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

describe('projections applied by the writer', () => {
  const tempDir = useTempDir()

  function run(flushEvery: number | null, file: string): { agents: AgentNode[]; job: ReturnType<typeof getJob> } {
    const db = openDatabase(join(tempDir(), file))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    sampleJobEvents().forEach((event, index) => {
      writer.append(event)
      if (flushEvery !== null && (index + 1) % flushEvery === 0) writer.flush()
    })
    writer.close()
    const result = { agents: getAgents(db, jobId), job: getJob(db, jobId) }
    db.close()
    return result
  }

  it('turns a small job into the right tree, usage and job totals', () => {
    const { agents, job } = run(null, 'one-batch.db')
    const ts = fixedClock()
    const at = Array.from({ length: 18 }, () => ts())
    expect(agents).toEqual([
      {
        id: rootId,
        job_id: jobId,
        parent_id: null,
        depth: 0,
        label: 'root',
        profile: 'general',
        model: 'scripted-main',
        task: 'Describe the project layout',
        status: 'completed',
        terminal_reason: 'completed',
        current_tool: null,
        steps: 2,
        max_steps: 20,
        total_token_budget: 500_000,
        usage: rootUsage,
        cost_usd: 0.75,
        created_at: at[1],
        started_at: at[1],
        ended_at: at[16],
        last_event_at: at[16],
      },
      {
        id: childId,
        job_id: jobId,
        parent_id: rootId,
        depth: 1,
        label: 'map the repo',
        profile: 'explore',
        model: 'scripted-light',
        task: 'List the top-level modules',
        status: 'completed',
        terminal_reason: 'completed',
        current_tool: null,
        steps: 1,
        max_steps: 10,
        total_token_budget: 500_000,
        usage: childUsage,
        cost_usd: 0.125,
        created_at: at[6],
        started_at: at[7],
        ended_at: at[12],
        last_event_at: at[12],
      },
    ])
    expect(job).toMatchObject({ status: 'completed', ended_at: at[17], usage: jobUsage, cost_usd: 0.875 })
  })

  it('gives the same rows whether the events come in one batch or one per batch', () => {
    const together = run(null, 'together.db')
    expect(run(1, 'one-by-one.db')).toEqual(together)
    expect(run(4, 'by-four.db')).toEqual(together)
  })

  it('gives the same rows when a commit fails after its events were projected, and is retried', () => {
    // Up to the first agent.end (it sets steps and usage outright, which would hide an event
    // counted twice), committed in two batches: every agent started in the first, the second
    // holds a model call of a committed agent.
    const events = sampleJobEvents()
    const live = events.slice(
      0,
      events.findIndex((event) => event.type === 'agent.end'),
    )
    const half = live.findLastIndex((event) => event.type === 'agent.start') + 1
    expect(live.slice(half).some((event) => event.type === 'llm.call')).toBe(true)
    const project = (file: string, failSecondCommit: boolean) => {
      const db = openDatabase(join(tempDir(), file))
      const writer = new TraceWriter(db, { flushDelayMs: 1000 })
      writer.createJob(sampleJob())
      live.slice(0, half).forEach((event) => writer.append(event))
      writer.flush()
      live.slice(half).forEach((event) => writer.append(event))
      if (failSecondCommit) {
        // Fails in the batch's last step, once every event of it has been folded into its agents.
        db.exec("CREATE TRIGGER reject_agents BEFORE UPDATE ON agents BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
        expect(() => writer.flush()).toThrow('disk says no')
        db.exec('DROP TRIGGER reject_agents')
      }
      writer.close()
      const result = { agents: getAgents(db, jobId), job: getJob(db, jobId) }
      db.close()
      return result
    }
    expect(project('retried.db', true)).toEqual(project('once.db', false))
  })

  it('shows intermediate states: queued child, running tool, waiting for approval, control flags', () => {
    const db = openDatabase(join(tempDir(), 'steps.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    const events = sampleJobEvents()
    for (const event of events.slice(0, 7)) writer.append(event) // through subagent.queued
    writer.flush()
    expect(getAgent(db, childId)).toMatchObject({ status: 'queued', parent_id: rootId, depth: 1, started_at: null })
    expect(getAgent(db, rootId)).toMatchObject({ status: 'running', steps: 1, usage: { input_tokens: 1200 } })

    for (const event of events.slice(7, 10)) writer.append(event) // child start, subagent.start, tool.call
    writer.flush()
    expect(getAgent(db, childId)).toMatchObject({ status: 'running', current_tool: 'list_files' })

    const now = fixedClock('2025-03-01T11:00:00.000Z')
    const child = { job_id: jobId, agent_id: childId, parent_id: rootId, depth: 1 }
    // Its process went silent: the node still runs its tool (the UI marks it unresponsive from the event itself).
    const silentAt = now()
    writer.append({
      ...child,
      type: 'agent.health',
      ts: silentAt,
      data: { state: 'unresponsive', last_heartbeat_at: '2025-03-01T10:59:30.000Z', silent_ms: 30_000 },
    })
    writer.flush()
    expect(getAgent(db, childId)).toMatchObject({ status: 'running', current_tool: 'list_files', last_event_at: silentAt })
    writer.append({
      ...child,
      type: 'approval.request',
      ts: now(),
      data: { approval_id: 'ap-1', tool: 'shell', command: 'ls', reason: 'runs a command' },
    })
    writer.append({
      type: 'control',
      ts: now(),
      job_id: jobId,
      agent_id: null,
      parent_id: null,
      depth: null,
      data: { action: 'auto_approve', target: jobId, value: true, by: 'user' },
    })
    writer.append({
      type: 'control',
      ts: now(),
      job_id: jobId,
      agent_id: null,
      parent_id: null,
      depth: null,
      data: { action: 'pause', target: jobId, value: null, by: 'user' },
    })
    writer.flush()
    expect(getAgent(db, childId)?.status).toBe('waiting_approval')
    expect(getJob(db, jobId)).toMatchObject({ auto_approve: true, spawn_paused: true, status: 'running' })
    expect(getJobUsage(db, jobId).usage.input_tokens).toBe(1200)

    writer.append({ ...child, type: 'approval.decision', ts: now(), data: { approval_id: 'ap-1', decision: 'approved', by: 'user' } })
    writer.flush()
    expect(getAgent(db, childId)?.status).toBe('running')
    db.close()
  })
})
