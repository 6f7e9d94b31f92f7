import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openDatabase } from './database'
import { exportJob } from './export'
import { otlpFormat } from './otlp'
import { childId, childUsage, jobId, jobUsage, rootId, rootCalls, sampleJob, sampleJobEvents } from './testing/job-fixture'
import { useTempDir } from './testing/temp-dir'
import { TraceWriter } from './trace-writer'

interface Span {
  traceId: string
  spanId: string
  parentSpanId?: string
  name: string
  startTimeUnixNano: string
  endTimeUnixNano: string
  attributes: { key: string; value: { stringValue?: string; intValue?: string; doubleValue?: number; boolValue?: boolean } }[]
  status: { code: number }
}

const attribute = (span: Span, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value
  return value?.stringValue ?? (value?.intValue !== undefined ? Number(value.intValue) : (value?.doubleValue ?? value?.boolValue))
}

describe('OTLP export', () => {
  const tempDir = useTempDir()

  function exportSample(events = sampleJobEvents()) {
    const db = openDatabase(join(tempDir(), 'arbor.db'))
    const writer = new TraceWriter(db)
    writer.createJob(sampleJob())
    for (const event of events) writer.append(event)
    writer.flush()
    const file = join(tempDir(), 'trace.otlp.json')
    return { db, file, done: exportJob(db, jobId, file, otlpFormat()) }
  }

  it('writes resourceSpans with GenAI spans for the job, each agent, model call and tool call', async () => {
    const { db, file, done } = exportSample()
    const count = await done
    const document = JSON.parse(readFileSync(file, 'utf8'))
    const spans: Span[] = document.resourceSpans[0].scopeSpans[0].spans
    expect(count).toBe(spans.length)
    // job + 2 agents + 3 model calls + 1 tool call
    expect(spans).toHaveLength(7)
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1)
    expect(spans[0]!.traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(new Set(spans.map((span) => span.spanId)).size).toBe(7)

    const byOperation = (name: string) => spans.filter((span) => attribute(span, 'gen_ai.operation.name') === name)
    const agents = byOperation('invoke_agent')
    const root = agents.find((span) => attribute(span, 'gen_ai.agent.id') === rootId)!
    const child = agents.find((span) => attribute(span, 'gen_ai.agent.id') === childId)!
    const job = spans.find((span) => span.name === 'arbor job')!
    expect(root.parentSpanId).toBe(job.spanId)
    expect(child.parentSpanId).toBe(root.spanId)
    expect(attribute(child, 'arbor.depth')).toBe(1)
    expect(attribute(child, 'gen_ai.usage.input_tokens')).toBe(childUsage.input_tokens)
    expect(attribute(job, 'gen_ai.usage.input_tokens')).toBe(jobUsage.input_tokens)
    expect(attribute(job, 'arbor.cost_usd')).toBe(0.875)

    const chats = byOperation('chat')
    expect(chats).toHaveLength(3)
    expect(chats.filter((span) => span.parentSpanId === root.spanId).map((span) => attribute(span, 'gen_ai.usage.input_tokens'))).toEqual(
      rootCalls.map((call) => call.input_tokens),
    )
    const tool = byOperation('execute_tool')[0]!
    expect(tool).toMatchObject({ parentSpanId: child.spanId, name: 'execute_tool list_files', status: { code: 1 } })
    for (const span of spans) expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true)
    db.close()
  })

  it('ends the spans of a job still running at its newest event, with status unset', async () => {
    const { db, file, done } = exportSample(sampleJobEvents().slice(0, 10))
    await done
    const spans: Span[] = JSON.parse(readFileSync(file, 'utf8')).resourceSpans[0].scopeSpans[0].spans
    const unfinished = spans.filter((span) => span.status.code === 0)
    // job, root, child and the child's tool call are open; the root's first model call ended
    expect(unfinished.map((span) => span.name).sort()).toEqual(['arbor job', 'execute_tool list_files', 'invoke_agent map the repo', 'invoke_agent root'])
    db.close()
  })
})
