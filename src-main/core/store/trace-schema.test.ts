import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { eventTypes, type NewTraceEvent } from '../trace/events'
import { openDatabase } from './database'
import { exportJobJsonl } from './export'
import { childId, fixedClock, jobId, rootId, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { checkJsonSchema } from './testing/json-schema-check'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

const schemaFile = new URL('../../../docs/trace.schema.json', import.meta.url)
const schema = JSON.parse(readFileSync(schemaFile, 'utf8')) as { $defs: Record<string, { properties?: { type?: { enum?: string[] } } }> }

/** The sample job plus one event of every type it does not already have. */
function everyKindOfEvent(): NewTraceEvent[] {
  const events = sampleJobEvents()
  const now = fixedClock('2025-03-01T11:00:00.000Z')
  const child = { job_id: jobId, agent_id: childId, parent_id: rootId, depth: 1 }
  const root = { job_id: jobId, agent_id: rootId, parent_id: null, depth: 0 }
  const spawn = { call_id: 'call-2', child_agent_id: 'agent-late', profile: 'explore', description: 'late', task: 'too late' }
  const extra: NewTraceEvent[] = [
    { ...child, type: 'approval.request', ts: now(), data: { approval_id: 'ap-1', tool: 'shell', command: 'rm -rf build', reason: 'deletes files' } },
    { ...child, type: 'approval.decision', ts: now(), data: { approval_id: 'ap-1', decision: 'denied', by: 'auto_deny' } },
    { ...root, type: 'subagent.held', ts: now(), data: { ...spawn, reason: 'spawning is paused' } },
    { ...root, type: 'subagent.denied', ts: now(), data: { ...spawn, reason: 'max depth reached' } },
    { ...root, type: 'control', ts: now(), data: { action: 'kill', target: childId, value: true, by: 'user' } },
    { ...root, type: 'context.compact', ts: now(), data: { before_tokens: 90_000, after_tokens: 12_000 } },
    { ...root, type: 'budget.warning', ts: now(), data: { tokens: 8000, cost_usd: 0.5, token_budget: 10_000, cost_budget: null, share: 0.8 } },
    { ...root, type: 'error', ts: now(), data: { message: 'agent process exited unexpectedly' } },
  ]
  return [...events.slice(0, -1), ...extra, events.at(-1)!]
}

describe('docs/trace.schema.json', () => {
  const tempDir = useTempDir()

  it('lists exactly the event types of events.ts, each with a data schema', () => {
    expect(schema.$defs.event?.properties?.type?.enum).toEqual([...eventTypes])
    for (const type of eventTypes) expect(schema.$defs[`data.${type}`], type).toBeDefined()
  })

  it('accepts every line of an exported trace', async () => {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db)
    writer.createJob(sampleJob())
    const events = everyKindOfEvent()
    for (const event of events) writer.append(event)
    writer.close()
    const file = join(tempDir(), 'trace.jsonl')
    await exportJobJsonl(db, jobId, file)
    db.close()
    const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
    expect(new Set(lines.slice(1).map((line) => (JSON.parse(line) as { type: string }).type))).toEqual(new Set(eventTypes))
    lines.forEach((line, index) => expect(checkJsonSchema(schema, JSON.parse(line)), `line ${index + 1}`).toEqual([]))
  })

  it('rejects lines with missing or wrong keys', () => {
    const event = { type: 'llm.call', seq: 1, ts: 'x', job_id: 'j', agent_id: 'a', parent_id: null, depth: 0 }
    expect(checkJsonSchema(schema, event).join()).toMatch(/missing required key "data"/)
    const data = { provider: 'openai', model: 'm', cost_usd: null, duration_ms: 1, finish_reason: 'stop' }
    expect(checkJsonSchema(schema, { ...event, data }).join()).toMatch(/missing required key "usage"/)
    expect(checkJsonSchema(schema, { ...event, seq: 0, data: {} }).join()).toMatch(/below 1/)
    expect(checkJsonSchema(schema, { type: 'trace.header', format: 'arbor-trace', version: 2 }).join()).toMatch(/expected 1/)
  })
})
