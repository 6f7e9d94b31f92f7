/**
 * A trace file (docs/trace-format.md) of one job whose root agent has a long history: model
 * calls, tool calls and results, and now and then an assistant message long enough to be cut.
 * The inspector e2e test imports it into a real `arbor serve`; the inspector bench serves it.
 */
import { defaultSettings } from '../../src-main/core/trace/model'

export interface LongTrace {
  jobId: string
  agentId: string
  /** The file's text: header, then one event a line. */
  jsonl: string
  /** The seq of every event of the root agent, in order (job-level events excluded). */
  agentSeqs: number[]
  /** The one model call, half way through, that took `slowCallMs`: a bar wide enough to click on the timeline. */
  slowCall: { seq: number; ts: string; durationMs: number }
}

/** Every event is 10 ms after the one before, except after the slow call. */
const stepMs = 10
const slowCallMs = 20_000

const usage = { input_tokens: 120, output_tokens: 8, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }

/** `agentEvents` events for the root agent (agent.start and agent.end included), wrapped in job.start / job.end. */
export function longTrace(agentEvents: number, jobId = 'job_long', agentId = 'agent_long_root'): LongTrace {
  const settings = defaultSettings()
  const task = 'Walk every file of a very large repository.'
  const start = Date.parse('2026-01-01T10:00:00.000Z')
  const lines: string[] = []
  const agentSeqs: number[] = []
  let seq = 0
  let late = 0
  let ts = ''
  const push = (type: string, onAgent: boolean, data: object): void => {
    seq += 1
    ts = new Date(start + seq * stepMs + late).toISOString()
    lines.push(
      JSON.stringify({
        type,
        seq,
        ts,
        job_id: jobId,
        agent_id: onAgent ? agentId : null,
        parent_id: null,
        depth: onAgent ? 0 : null,
        data,
      }),
    )
    if (onAgent) agentSeqs.push(seq)
  }
  lines.push(
    JSON.stringify({
      type: 'trace.header',
      format: 'arbor-trace',
      version: 1,
      job: { id: jobId, project: '/projects/long', task, settings, status: 'completed', created_at: new Date(start).toISOString() },
      exported_at: new Date(start + 3_600_000).toISOString(),
    }),
  )
  push('job.start', false, { task, settings })
  push('agent.start', true, {
    profile: 'general',
    model: 'scripted',
    label: 'root',
    task,
    tools: ['read_file', 'attempt_completion'],
    max_steps: null,
    context_token_budget: null,
    total_token_budget: null,
  })
  const steps = agentEvents - 2
  const slowStep = Math.floor(steps / 8)
  let slowCall = { seq: 0, ts: '', durationMs: slowCallMs }
  let calls = 0
  for (let index = 0; index < steps; index++) {
    const step = Math.floor(index / 4)
    const callId = `call_${step}`
    const path = `src/module-${step}.ts`
    switch (index % 4) {
      case 0: {
        const slow = step === slowStep
        if (slow) late += slowCallMs
        push('llm.call', true, {
          provider: 'scripted',
          model: 'scripted',
          usage,
          cost_usd: null,
          duration_ms: slow ? slowCallMs : 5,
          finish_reason: 'tool_calls',
        })
        if (slow) slowCall = { seq, ts, durationMs: slowCallMs }
        break
      }
      case 1:
        calls += 1
        push('tool.call', true, { call_id: callId, name: 'read_file', arguments: { path } })
        break
      case 2:
        push('tool.result', true, {
          call_id: callId,
          name: 'read_file',
          ok: true,
          output: `export const value${step} = ${step}\n`.repeat(1 + (step % 5)),
          truncated: false,
          duration_ms: 1,
        })
        break
      default:
        // Every fifth note is long, so its row has a "show all" and is taller when expanded.
        push('message', true, {
          role: 'assistant',
          content: step % 5 === 0 ? `Step ${step}: ${'read and noted. '.repeat(60)}` : `Step ${step}: read ${path}.`,
        })
    }
  }
  const total = {
    ...usage,
    input_tokens: usage.input_tokens * Math.ceil(steps / 4),
    output_tokens: usage.output_tokens * Math.ceil(steps / 4),
  }
  push('agent.end', true, {
    status: 'completed',
    terminal_reason: 'completed',
    result: 'Read every module.',
    summary: 'Read every module.',
    usage: total,
    cost_usd: null,
    steps: Math.ceil(steps / 4),
    tool_usage: { read_file: calls },
    duration_ms: seq * stepMs + late,
  })
  push('job.end', false, { status: 'completed', usage: total, cost_usd: null })
  return { jobId, agentId, jsonl: lines.join('\n') + '\n', agentSeqs, slowCall }
}
