import { createHash } from 'node:crypto'
import type { Job } from '../trace/model'
import type { Usage } from '../trace/usage'
import type { ExportFormat } from './export'
import type { EventRow } from './rows'

/**
 * OTLP JSON (`resourceSpans`) with the OpenTelemetry GenAI conventions, so a trace opens in
 * Jaeger, Langfuse or Phoenix: a span for the job, one `invoke_agent` span per agent (children
 * under their parent's), one `chat` span per model call and one `execute_tool` span per tool
 * call, plus `arbor.*` attributes for depth, status and budgets. Written as the events stream
 * by: a span is written when it ends, so only open spans are held in memory.
 */
type AttributeValue = string | number | boolean | string[] | null | undefined

interface OpenSpan {
  spanId: string
  parentSpanId: string
  name: string
  startNs: bigint
  attributes: Record<string, AttributeValue>
}

export function otlpFormat(): ExportFormat {
  let traceId = ''
  let jobSpanId = ''
  let written = 0
  let lastNs = 0n
  const open = new Map<string, OpenSpan>()

  const agentSpanId = (agentId: string): string => hexId(`${traceId}/agent/${agentId}`, 16)
  const span = (done: OpenSpan, endNs: bigint, ok: boolean | null, extra: Record<string, AttributeValue> = {}): string => {
    const text = JSON.stringify({
      traceId,
      spanId: done.spanId,
      ...(done.parentSpanId ? { parentSpanId: done.parentSpanId } : {}),
      name: done.name,
      kind: 1,
      startTimeUnixNano: String(done.startNs),
      endTimeUnixNano: String(endNs < done.startNs ? done.startNs : endNs),
      attributes: attributes({ ...done.attributes, ...extra }),
      status: { code: ok === null ? 0 : ok ? 1 : 2 },
    })
    return `${written++ === 0 ? '' : ','}${text}`
  }

  return {
    begin(job: Job) {
      traceId = hexId(`arbor/${job.id}`, 32)
      jobSpanId = hexId(`${traceId}/job`, 16)
      const resource = attributes({ 'service.name': 'arbor', 'arbor.job.id': job.id, 'arbor.project': job.project })
      return `{"resourceSpans":[{"resource":{"attributes":${JSON.stringify(resource)}},"scopeSpans":[{"scope":{"name":"arbor","version":"1"},"spans":[`
    },

    event(row: EventRow) {
      const data = JSON.parse(row.data) as Record<string, unknown>
      const ns = nanos(row.ts)
      if (ns > lastNs) lastNs = ns
      const agentId = row.agent_id ?? ''
      const parentOfAgentSpan = (): string => (row.parent_id ? agentSpanId(row.parent_id) : jobSpanId)
      switch (row.type) {
        case 'job.start':
          open.set('job', {
            spanId: jobSpanId,
            parentSpanId: '',
            name: 'arbor job',
            startNs: ns,
            attributes: {
              'arbor.job.task': str(data.task),
              'arbor.budget.job_tokens': numberOf((data.settings as Record<string, unknown> | undefined)?.job_token_budget),
              'arbor.budget.job_cost_usd': numberOf((data.settings as Record<string, unknown> | undefined)?.job_cost_budget),
            },
          })
          return ''
        case 'job.end':
          return closeSpan('job', ns, data.status === 'completed', { 'arbor.status': str(data.status), ...usageAttributes(data.usage, data.cost_usd) })
        case 'agent.start':
          open.set(`agent/${agentId}`, {
            spanId: agentSpanId(agentId),
            parentSpanId: parentOfAgentSpan(),
            name: `invoke_agent ${str(data.label) ?? str(data.profile) ?? 'agent'}`,
            startNs: ns,
            attributes: {
              'gen_ai.operation.name': 'invoke_agent',
              'gen_ai.agent.id': agentId,
              'gen_ai.agent.name': str(data.label),
              'gen_ai.request.model': str(data.model),
              'arbor.profile': str(data.profile),
              'arbor.depth': row.depth ?? 0,
              'arbor.budget.max_steps': numberOf(data.max_steps),
              'arbor.budget.context_tokens': numberOf(data.context_token_budget),
              'arbor.budget.total_tokens': numberOf(data.total_token_budget),
            },
          })
          return ''
        case 'agent.end':
          return closeSpan(`agent/${agentId}`, ns, data.status === 'completed' || data.status === 'partial', {
            'arbor.status': str(data.status),
            'arbor.terminal_reason': str(data.terminal_reason),
            'arbor.steps': numberOf(data.steps),
            ...usageAttributes(data.usage, data.cost_usd),
          })
        case 'llm.call': {
          const started = ns - BigInt(Math.round(Number(data.duration_ms ?? 0))) * 1_000_000n
          const chat: OpenSpan = {
            spanId: hexId(`${traceId}/chat/${row.seq}`, 16),
            parentSpanId: agentSpanId(agentId),
            name: `chat ${str(data.model) ?? ''}`.trim(),
            startNs: started,
            attributes: {
              'gen_ai.operation.name': 'chat',
              'gen_ai.provider.name': str(data.provider),
              'gen_ai.request.model': str(data.model),
              'gen_ai.response.finish_reasons': str(data.finish_reason) ? [String(data.finish_reason)] : undefined,
              ...usageAttributes(data.usage, data.cost_usd),
            },
          }
          return span(chat, ns, true)
        }
        case 'tool.call':
          open.set(`tool/${agentId}/${str(data.call_id)}`, {
            spanId: hexId(`${traceId}/tool/${agentId}/${str(data.call_id)}`, 16),
            parentSpanId: agentSpanId(agentId),
            name: `execute_tool ${str(data.name) ?? ''}`.trim(),
            startNs: ns,
            attributes: { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': str(data.name), 'gen_ai.tool.call.id': str(data.call_id) },
          })
          return ''
        case 'tool.result':
          return closeSpan(`tool/${agentId}/${str(data.call_id)}`, ns, data.ok === true, { 'arbor.tool.truncated': data.truncated === true })
        default:
          return ''
      }
    },

    end() {
      // A job exported while it runs: spans still open end at the newest event, status unset.
      const rest = [...open.values()].map((still) => span(still, lastNs, null))
      open.clear()
      return `${rest.join('')}]}]}]}\n`
    },

    get count() {
      return written
    },
  }

  function closeSpan(key: string, endNs: bigint, ok: boolean, extra: Record<string, AttributeValue>): string {
    const started = open.get(key)
    if (!started) return ''
    open.delete(key)
    return span(started, endNs, ok, extra)
  }
}

function usageAttributes(usage: unknown, cost: unknown): Record<string, AttributeValue> {
  const counts = (usage ?? {}) as Partial<Usage>
  return {
    'gen_ai.usage.input_tokens': counts.input_tokens,
    'gen_ai.usage.output_tokens': counts.output_tokens,
    'gen_ai.usage.cache_read.input_tokens': counts.cache_read_tokens,
    'gen_ai.usage.cache_creation.input_tokens': counts.cache_write_tokens,
    'arbor.usage.reasoning_tokens': counts.reasoning_tokens,
    'arbor.cost_usd': numberOf(cost),
  }
}

/** OTLP JSON attributes; absent values are left out, integers are int64 strings as proto3 JSON has them. */
function attributes(values: Record<string, AttributeValue>): { key: string; value: Record<string, unknown> }[] {
  return Object.entries(values).flatMap(([key, value]): { key: string; value: Record<string, unknown> }[] => {
    if (value === undefined || value === null) return []
    if (Array.isArray(value)) return [{ key, value: { arrayValue: { values: value.map((item) => ({ stringValue: item })) } } }]
    if (typeof value === 'boolean') return [{ key, value: { boolValue: value } }]
    if (typeof value === 'number') return [{ key, value: Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value } }]
    return [{ key, value: { stringValue: value } }]
  })
}

const hexId = (seed: string, length: number): string => createHash('sha256').update(seed).digest('hex').slice(0, length)
const nanos = (ts: string): bigint => BigInt(Date.parse(ts)) * 1_000_000n
const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined)
const numberOf = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined)
