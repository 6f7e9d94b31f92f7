import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { builtinProfiles } from '../job/profiles'
import { createRedactor } from '../secrets/redact'
import { openDatabase } from '../store/database'
import { getAgent, getJobEvents } from '../store/queries'
import { sampleJob } from '../store/testing/job-fixture'
import { useTempDir } from '../store/testing/temp-dir'
import { TraceWriter } from '../store/trace-writer'
import { defaultSettings } from '../trace/model'
import { newAgentRuntime, newJobRuntime, type AgentRuntime } from './runtime'
import { TraceEmitter } from './trace-emitter'
import { AgentWaits } from './waits'

describe('AgentWaits', () => {
  const tempDir = useTempDir()

  /** A job with a running root and child, whose waits go through a real trace writer into SQLite. */
  function rig() {
    const db = openDatabase(join(tempDir(), 'waits.db'))
    const writer = new TraceWriter(db, { flushDelayMs: 1000 })
    const stored = sampleJob()
    writer.createJob(stored)
    let now = Date.parse('2026-12-01T10:00:00.000Z')
    const job = newJobRuntime({
      id: stored.id,
      project: stored.project,
      settings: defaultSettings(),
      context: { connection: null },
      profiles: builtinProfiles,
      subagentApprovals: 'deny',
      paused: false,
      redactor: createRedactor([]),
    })
    const agent = (id: string, parent: AgentRuntime | null): AgentRuntime => {
      const made = newAgentRuntime({
        id,
        job,
        parent,
        profile: builtinProfiles.general!,
        label: id,
        task: 'work',
        request: null,
        callId: null,
        status: 'running',
        now,
      })
      parent?.children.push(made)
      return made
    }
    const root = agent('agent-root', null)
    const child = agent('agent-child', root)
    const trace = new TraceEmitter(writer, () => new Date(now))
    for (const each of [root, child]) {
      trace.agent(each, 'agent.start', {
        profile: 'general',
        model: 'm',
        label: each.id,
        task: 'work',
        tools: [],
        max_steps: 10,
        context_token_budget: null,
        total_token_budget: null,
      })
    }
    const clock: string[] = []
    const waits = new AgentWaits({
      trace,
      clock: (who, waiting) => clock.push(`${who.id} ${waiting ? 'stops' : 'goes on'}`),
      now: () => now,
    })
    const later = (ms: number) => (now += ms)
    const read = () => {
      writer.flush()
      return { child: getAgent(db, child.id)!, events: getJobEvents(db, stored.id).filter((event) => event.type === 'agent.wait') }
    }
    return { waits, root, child, clock, later, read, close: () => (writer.close(), db.close()) }
  }

  it('records a wait and its next try, shows the agent rate_limited with the wait stored, and ends it with how long it took', () => {
    const { waits, child, clock, later, read, close } = rig()
    for (const t of [30_000, 60_000]) {
      waits.start(child, 'rate_limit', {
        message: '429 slow down',
        until: new Date(Date.now() + t),
        provider: 'openai',
        status: 429,
        attempt: t / 30_000,
      })
      // As the store writes it, a node waits while the supervisor holds its call.
      expect(read().child).toMatchObject({ status: 'rate_limited', wait: { reason: 'rate_limit', message: '429 slow down' } })
      later(t)
    }
    expect(waits.reasonOf(child)).toBe('rate_limit')
    expect(child.status).toBe('rate_limited')
    expect(waits.end(child, 'retried')).toBe(90_000)
    expect(waits.end(child, 'retried')).toBeNull()
    expect(child.status).toBe('running')
    // The clock stopped once for the whole wait (each try is the same wait) and goes on once.
    expect(clock).toEqual(['agent-child stops', 'agent-child goes on'])
    const { child: node, events } = read()
    expect(node.status).toBe('running')
    expect(node).not.toHaveProperty('wait')
    expect(events.map((event) => [event.data.phase, event.data.attempt, event.data.outcome, event.data.waited_ms])).toEqual([
      ['start', 1, undefined, undefined],
      ['start', 2, undefined, undefined],
      ['end', undefined, 'retried', 90_000],
    ])
    close()
  })

  it('a wait for another reason ends the one it is in; an ended agent starts none', () => {
    const { waits, root, child, read, close } = rig()
    waits.start(root, 'rate_limit', { message: '529 overloaded' })
    waits.start(root, 'job_budget', { message: 'the job used its tokens', until: null })
    expect(root.status).toBe('paused')
    child.ended = true
    waits.start(child, 'job_budget', { message: 'never recorded' })
    expect(child.wait).toBeNull()
    expect(read().events.map((event) => [event.agent_id, event.data.phase, event.data.reason, event.data.outcome ?? null])).toEqual([
      ['agent-root', 'start', 'rate_limit', null],
      ['agent-root', 'end', 'rate_limit', 'retried'],
      ['agent-root', 'start', 'job_budget', null],
    ])
    close()
  })
})
