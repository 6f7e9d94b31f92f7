import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createDispatcher } from '../api/dispatcher'
import type { ApiHandlers } from '../api/contract'
import { openDatabase } from '../store/database'
import { childId, fixedClock, jobId, rootId, sampleJob, sampleJobEvents } from '../store/testing/job-fixture'
import { useTempDir } from '../store/testing/temp-dir'
import { TraceWriter } from '../store/trace-writer'
import { newEvent } from '../trace/events'
import type { EngineContext } from './context'
import { jobHandlers } from './job-handlers'

describe('getTree', () => {
  const tempDir = useTempDir()

  /** A real database with the sample job (a root and its child), all but its last two events in; getTree reads only the store and the pending approvals. */
  function withJob() {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    writer.createJob(sampleJob())
    for (const event of sampleJobEvents().slice(0, -2)) writer.append(event)
    const supervisor = {
      pendingApprovals: () => [],
      approvedCommands: () => [],
      wrappingUp: () => [],
      heldSpawns: () => [],
      unresponsiveAgents: () => [],
    }
    const handlers = jobHandlers({ db, writer, supervisor } as unknown as EngineContext)
    const close = () => {
      writer.close()
      db.close()
    }
    return { writer, handlers, close }
  }

  const spawnEvent = (agent: string) =>
    newEvent(
      'agent.start',
      { ts: fixedClock('2025-03-01T11:00:00.000Z')(), job_id: jobId, agent_id: agent, parent_id: rootId, depth: 1 },
      {
        profile: 'explore',
        model: 'scripted-light',
        task: 'late',
        label: 'late',
        tools: [],
        max_steps: 5,
        context_token_budget: 1000,
        total_token_budget: 1000,
      },
    )

  it('pages one snapshot: an agent spawned between two pages is in none of them, only after the watermark', async () => {
    const { writer, handlers, close } = withJob()
    const whole = await handlers.getTree({ job_id: jobId })
    expect(whole.next).toBeNull()
    expect(whole.agents.map((agent) => agent.id).sort()).toEqual([rootId, childId].sort())

    const first = await handlers.getTree({ job_id: jobId, limit: 1 })
    expect(first.agents).toHaveLength(1)
    expect(first.next).toEqual({ snapshot: expect.any(String), offset: 1 })
    // Committed between the pages: the snapshot was taken before it.
    writer.append(spawnEvent('agent-late'))
    writer.flush()
    const second = await handlers.getTree({ job_id: jobId, page: first.next! })
    expect(second.next).toBeNull()
    expect([...first.agents, ...second.agents]).toEqual(whole.agents)
    expect(second.last_seq).toBe(whole.last_seq)
    expect(second.job).toEqual(whole.job)

    const after = await handlers.getTree({ job_id: jobId })
    expect(after.last_seq).toBeGreaterThan(whole.last_seq)
    expect(after.agents.map((agent) => agent.id)).toContain('agent-late')
    close()
  })

  it('forgets a snapshot once its last page is read, and refuses one of another job', async () => {
    const { handlers, close } = withJob()
    const first = await handlers.getTree({ job_id: jobId, limit: 1 })
    await expect(handlers.getTree({ job_id: 'job-other', page: first.next! })).rejects.toMatchObject({ code: 'not_found' })
    await handlers.getTree({ job_id: jobId, page: first.next! })
    await expect(handlers.getTree({ job_id: jobId, page: first.next! })).rejects.toMatchObject({ code: 'not_found' })
    // A limit the tree fits in keeps nothing: there is no next page.
    expect((await handlers.getTree({ job_id: jobId, limit: 2 })).next).toBeNull()
    close()
  })

  it('keeps the eight newest unfinished snapshots', async () => {
    const { handlers, close } = withJob()
    const started = []
    for (let index = 0; index < 9; index++) started.push((await handlers.getTree({ job_id: jobId, limit: 1 })).next!)
    await expect(handlers.getTree({ job_id: jobId, page: started[0]! })).rejects.toMatchObject({ code: 'not_found' })
    for (const page of started.slice(1)) expect((await handlers.getTree({ job_id: jobId, page })).agents).toHaveLength(1)
    close()
  })

  it('takes the paging fields through the dispatcher, as IPC and the WebSocket send them', async () => {
    const { handlers, close } = withJob()
    const dispatch = createDispatcher(handlers as ApiHandlers)
    const first = await dispatch('getTree', { job_id: jobId, limit: 1 })
    expect(first).toMatchObject({ ok: true, value: { next: { offset: 1 } } })
    const next = (first as { value: { next: unknown } }).value.next
    expect(await dispatch('getTree', { job_id: jobId, page: next })).toMatchObject({ ok: true, value: { next: null } })
    for (const input of [
      { job_id: jobId, limit: 0 },
      { job_id: jobId, limit: 5001 },
      { job_id: jobId, page: { snapshot: 's', offset: 0 } },
      { job_id: jobId, page: { offset: 1 } },
    ]) {
      expect(await dispatch('getTree', input)).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    }
    close()
  })
})
