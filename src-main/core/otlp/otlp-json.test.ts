import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { checkOtlpJson } from './testing/otlp-proto'
import { spawnJobEvents, storeJob } from './testing/spawn-fixture'
import type { NewTraceEvent } from '../trace/events'
import type { Job } from '../trace/model'
import { exportJob } from '../store/export'
import { otlpFormat } from './otlp-json'
import { childId, childUsage, jobId, jobUsage, rootCalls, rootId, sampleJob, sampleJobEvents } from '../store/testing/job-fixture'
import { useTempDir } from '../store/testing/temp-dir'

interface JsonValue {
  stringValue?: string
  intValue?: string
  doubleValue?: number
  boolValue?: boolean
  arrayValue?: { values: JsonValue[] }
}
interface Span {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  kind: number
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: { key: string; value: JsonValue }[]
  status: { code: number; message?: string }
}

const value = (span: Span, key: string): JsonValue | undefined => span.attributes.find((entry) => entry.key === key)?.value
const attribute = (span: Span, key: string) => {
  const found = value(span, key)
  return found?.stringValue ?? (found?.intValue !== undefined ? Number(found.intValue) : (found?.doubleValue ?? found?.boolValue))
}

describe('OTLP export', () => {
  const tempDir = useTempDir()

  async function exportSpans(events: NewTraceEvent[] = spawnJobEvents(), job: Job = sampleJob()) {
    const db = storeJob(tempDir(), job, events)
    const file = join(tempDir(), 'trace.otlp.json')
    const count = await exportJob(db, jobId, file, otlpFormat())
    db.close()
    const document = JSON.parse(readFileSync(file, 'utf8'))
    const spans: Span[] = document.resourceSpans[0].scopeSpans[0].spans
    expect(count).toBe(spans.length)
    const byOperation = (name: string) => spans.filter((span) => attribute(span, 'gen_ai.operation.name') === name)
    return { document, spans, byOperation }
  }

  it('writes an invoke_workflow span for the job, invoke_agent per agent, chat per model call and execute_tool per tool call', async () => {
    const { spans, byOperation } = await exportSpans()
    // job + 2 agents + 3 model calls + 2 tool calls (task, list_files)
    expect(spans).toHaveLength(8)
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1)
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(8)

    const [job] = byOperation('invoke_workflow')
    expect(job).toMatchObject({ name: 'invoke_workflow arbor', kind: 1, status: { code: 1 } })
    expect(job!.parentSpanId).toBeUndefined()
    expect(attribute(job!, 'gen_ai.workflow.name')).toBe('arbor')
    expect(attribute(job!, 'gen_ai.usage.input_tokens')).toBe(jobUsage.input_tokens)
    expect(attribute(job!, 'arbor.cost_usd')).toBe(0.875)

    const agents = byOperation('invoke_agent')
    const root = agents.find((span) => attribute(span, 'gen_ai.agent.id') === rootId)!
    const child = agents.find((span) => attribute(span, 'gen_ai.agent.id') === childId)!
    for (const agent of agents) expect(attribute(agent, 'gen_ai.provider.name')).toBe('scripted')
    expect(root.parentSpanId).toBe(job!.spanId)
    const task = byOperation('execute_tool').find((span) => span.name === 'execute_tool task')!
    expect(task.parentSpanId).toBe(root.spanId)
    // The subagent hangs under the task call that spawned it, not directly under its parent agent.
    expect(child.parentSpanId).toBe(task.spanId)
    expect(attribute(child, 'arbor.depth')).toBe(1)
    expect(attribute(child, 'gen_ai.usage.input_tokens')).toBe(childUsage.input_tokens)
    expect(attribute(child, 'gen_ai.usage.reasoning.output_tokens')).toBe(childUsage.reasoning_tokens)

    const chats = byOperation('chat')
    expect(chats).toHaveLength(3)
    // The scripted model runs in the process: INTERNAL, and no server to name.
    for (const chat of chats) expect({ kind: chat.kind, server: value(chat, 'server.address') }).toEqual({ kind: 1, server: undefined })
    expect(chats.filter((span) => span.parentSpanId === root.spanId).map((span) => attribute(span, 'gen_ai.usage.input_tokens'))).toEqual(
      rootCalls.map((call) => call.input_tokens),
    )
    const listFiles = byOperation('execute_tool').find((span) => span.name === 'execute_tool list_files')!
    expect(listFiles).toMatchObject({ parentSpanId: child.spanId, status: { code: 1 } })
    for (const span of spans) expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true)
  })

  it('hangs a subagent under its parent agent when the trace has no task tool call (an older trace)', async () => {
    const { byOperation } = await exportSpans(sampleJobEvents())
    const agents = byOperation('invoke_agent')
    const root = agents.find((span) => attribute(span, 'gen_ai.agent.id') === rootId)!
    expect(agents.find((span) => attribute(span, 'gen_ai.agent.id') === childId)!.parentSpanId).toBe(root.spanId)
  })

  it('ends the spans of a job still running at its newest event, with status unset', async () => {
    const { spans } = await exportSpans(spawnJobEvents().slice(0, 11))
    const unfinished = spans.filter((span) => span.status.code === 0)
    expect(unfinished.map((span) => span.name).sort()).toEqual([
      'execute_tool list_files',
      'execute_tool task',
      'invoke_agent map the repo',
      'invoke_agent root',
      'invoke_workflow arbor',
    ])
  })

  it('marks every span that ended in error with error.type and a status message', async () => {
    const events = spawnJobEvents().map((event): NewTraceEvent => {
      if (event.type === 'tool.result' && event.data.name === 'list_files')
        return { ...event, data: { ...event.data, ok: false, output: 'Error: list_files failed: no such folder\nmore' } }
      if (event.type === 'agent.end' && event.agent_id === childId)
        return { ...event, data: { ...event.data, status: 'failed', terminal_reason: 'provider_error' } }
      if (event.type === 'job.end') return { ...event, data: { ...event.data, status: 'failed' } }
      return event
    })
    const childEnd = events.findIndex((event) => event.type === 'agent.end' && event.agent_id === childId)
    events.splice(childEnd, 0, { ...events[childEnd]!, type: 'error', data: { message: 'the provider answered 500' } })
    const { spans } = await exportSpans(events)
    const failed = spans.filter((span) => span.status.code === 2)
    expect(failed.map((span) => [span.name, attribute(span, 'error.type'), span.status.message])).toEqual([
      ['execute_tool list_files', 'tool_error', 'Error: list_files failed: no such folder'],
      ['invoke_agent map the repo', 'provider_error', 'agent failed (provider_error): the provider answered 500'],
      ['invoke_workflow arbor', 'failed', 'job failed'],
    ])
    for (const span of spans.filter((each) => each.status.code !== 2)) expect(value(span, 'error.type')).toBeUndefined()
  })

  it('makes each wait an arbor.wait span under its agent, from its first start to its end, the next tries updating it', async () => {
    const events = spawnJobEvents()
    const call = events.findIndex((event) => event.type === 'llm.call' && event.agent_id === childId)
    const callAt = Date.parse(events[call]!.ts)
    const at = (ms: number) => new Date(callAt - ms).toISOString()
    const wait = (ts: string, data: Record<string, unknown>): NewTraceEvent => ({ ...events[call]!, ts, type: 'agent.wait', data }) as never
    const start = { phase: 'start', reason: 'rate_limit', provider: 'openai', status: 429 }
    events.splice(
      call,
      0,
      wait(at(9000), { ...start, message: 'openai: HTTP 429 rate_limit_exceeded', until: at(7000), attempt: 1 }),
      wait(at(7000), { ...start, message: 'openai: HTTP 429 rate_limit_exceeded', until: at(3000), attempt: 2 }),
      wait(at(2000), { phase: 'end', reason: 'rate_limit', outcome: 'retried', waited_ms: 7000 }),
    )
    const { spans } = await exportSpans(events)
    const waits = spans.filter((span) => span.name === 'arbor.wait rate_limit')
    expect(waits).toHaveLength(1)
    const [span] = waits
    const agent = spans.find((each) => each.name === 'invoke_agent map the repo')!
    expect(span!.parentSpanId).toBe(agent.spanId)
    expect(Number(BigInt(span!.endTimeUnixNano) - BigInt(span!.startTimeUnixNano)) / 1e6).toBe(7000)
    expect(span!.status.code).toBe(1)
    expect([2, 'openai', 429, 'retried', 7000, at(3000)]).toEqual(
      [
        'arbor.wait.attempt',
        'arbor.wait.provider',
        'http.response.status_code',
        'arbor.wait.outcome',
        'arbor.wait.waited_ms',
        'arbor.wait.until',
      ].map((key) => attribute(span!, key)),
    )
  })

  it('makes calls to a remote provider CLIENT spans naming the server, and keeps costs doubles and tokens integers', async () => {
    const job = sampleJob({ settings: { ...sampleJob().settings, provider: 'openai', base_url: 'https://llm.example.test:8443/v1' } })
    let calls = 0
    const events = spawnJobEvents(job).map((event): NewTraceEvent => {
      if (event.type !== 'llm.call') return event
      // Integral costs (0 and 1 USD) are still doubles.
      const index = calls++
      const response = index === 0 ? { response_id: 'chatcmpl-1', response_model: 'gpt-4.1-2025-04-14' } : {}
      return { ...event, data: { ...event.data, ...response, provider: 'openai', cost_usd: [0, 1, 0.125][index] ?? null } }
    })
    const { spans, byOperation } = await exportSpans(events, job)
    const chats = byOperation('chat')
    for (const chat of chats) {
      expect(chat.kind).toBe(3)
      expect(value(chat, 'server.address')).toEqual({ stringValue: 'llm.example.test' })
      expect(value(chat, 'server.port')).toEqual({ intValue: '8443' })
      expect(value(chat, 'gen_ai.provider.name')).toEqual({ stringValue: 'openai' })
    }
    expect(chats.map((chat) => value(chat, 'arbor.cost_usd'))).toEqual([{ doubleValue: 0 }, { doubleValue: 1 }, { doubleValue: 0.125 }])
    // Response id and model where the trace has them (Arbor's own llm.call records neither yet).
    expect(chats.map((chat) => [value(chat, 'gen_ai.response.id'), value(chat, 'gen_ai.response.model')])).toEqual([
      [{ stringValue: 'chatcmpl-1' }, { stringValue: 'gpt-4.1-2025-04-14' }],
      [undefined, undefined],
      [undefined, undefined],
    ])
    for (const agent of byOperation('invoke_agent')) expect(value(agent, 'gen_ai.provider.name')).toEqual({ stringValue: 'openai' })
    for (const span of spans) {
      for (const { key, value: each } of span.attributes) {
        if (key === 'arbor.cost_usd' || key === 'arbor.budget.job_cost_usd') expect(Object.keys(each), key).toEqual(['doubleValue'])
        if (key.startsWith('gen_ai.usage.')) expect(Object.keys(each), key).toEqual(['intValue'])
      }
    }
  })

  it('names the public API as the server when the job has no base URL', async () => {
    const job = sampleJob({ settings: { ...sampleJob().settings, provider: 'anthropic' } })
    const events = spawnJobEvents(job).map((event): NewTraceEvent =>
      event.type === 'llm.call' ? { ...event, data: { ...event.data, provider: 'anthropic' } } : event,
    )
    const [chat] = (await exportSpans(events, job)).byOperation('chat')
    expect([value(chat!, 'server.address'), value(chat!, 'server.port')]).toEqual([
      { stringValue: 'api.anthropic.com' },
      { intValue: '443' },
    ])
  })
})

describe('OTLP export against the official protobuf definitions', () => {
  const tempDir = useTempDir()

  let stored = 0
  async function exportDocument(events: NewTraceEvent[]) {
    const db = storeJob(tempDir(), sampleJob(), events, `arbor-${++stored}.db`)
    const file = join(tempDir(), 'trace.otlp.json')
    await exportJob(db, jobId, file, otlpFormat())
    db.close()
    return JSON.parse(readFileSync(file, 'utf8'))
  }

  it('passes the strict check for a finished and a running job, and survives an encode/decode round trip', async () => {
    for (const events of [spawnJobEvents(), spawnJobEvents().slice(0, 11)]) {
      const { errors, bytes } = checkOtlpJson(await exportDocument(events))
      expect(errors).toEqual([])
      expect(bytes!.length).toBeGreaterThan(500)
    }
  })

  it('fails a broken export: unknown fields, wrong types, bad ids, enums as names', async () => {
    const document = await exportDocument(spawnJobEvents())
    const spans = (doc: typeof document) => doc.resourceSpans[0].scopeSpans[0].spans
    const broken = (change: (doc: typeof document) => void) => {
      const copy = structuredClone(document)
      change(copy)
      return checkOtlpJson(copy).errors
    }
    expect(broken((doc) => (spans(doc)[0].colour = 'red'))).toEqual([
      'resourceSpans[0].scopeSpans[0].spans[0].colour: not a field of the OTLP protos (lost in the round trip)',
    ])
    expect(broken((doc) => (spans(doc)[1].attributes[0].value = { stringValue: 42 }))[0]).toMatch(/stringValue: string expected/)
    expect(broken((doc) => (spans(doc)[1].attributes[0].value = { intValue: 'forty' }))[0]).toMatch(/intValue: integer\|Long expected/)
    expect(broken((doc) => (spans(doc)[0].kind = 'SPAN_KIND_INTERNAL'))[0]).toMatch(/kind: enum value expected/)
    expect(broken((doc) => (spans(doc)[0].status.code = 7))[0]).toMatch(/code: enum value expected/)
    expect(broken((doc) => (spans(doc)[0].spanId = 'abcd'))).toEqual([
      'resourceSpans[0].scopeSpans[0].spans[0].spanId: 2 bytes, expected 8',
    ])
    expect(broken((doc) => (spans(doc)[0].traceId = 'not hex at all, no'))[0]).toMatch(/traceId: an id must be a hex string/)
    expect(broken((doc) => (spans(doc)[0].startTimeUnixNano = 1.5))[0]).toMatch(/startTimeUnixNano: integer\|Long expected/)
    expect(broken((doc) => (doc.resourceSpans[0].resource.attributes[0].value = { stringValue: 'arbor', note: 'x' }))).toEqual([
      'resourceSpans[0].resource.attributes[0].value.note: not a field of the OTLP protos (lost in the round trip)',
    ])
  })
})
