import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { newEvent, type EventData, type EventType } from '../../trace/events'
import type { FileChangeKind } from '../../trace/file-changes'
import type { AgentStatus } from '../../trace/statuses'
import type { SqliteDatabase } from '../database'
import { fileContentHash, putFileContent } from '../file-contents'
import { TraceWriter } from '../trace-writer'
import { fixedClock, sampleJob } from './job-fixture'

/**
 * A job with a root and two children (`a`, `b`, and `a`'s child `a1`) whose file changes a test
 * makes for real: each change writes the project folder on disk and appends the `file.change`
 * event with both contents stored, as the tools do.
 */
export interface ChangeJob {
  writer: TraceWriter
  project: string
  /** Makes the change on disk and records it for `agent`. `text` null deletes; `to` renames. */
  change(agent: AgentName, path: string, text: string | Buffer | null, options?: { to?: string; call?: string; store?: boolean }): void
  end(agent: AgentName, status?: AgentStatus): void
}

export type AgentName = 'root' | 'a' | 'b' | 'a1'
export const agentIds: Record<AgentName, string> = { root: 'agent-root', a: 'agent-a', b: 'agent-b', a1: 'agent-a1' }
const parents: Record<AgentName, AgentName | null> = { root: null, a: 'root', b: 'root', a1: 'a' }
const depths: Record<AgentName, number> = { root: 0, a: 1, b: 1, a1: 2 }

export function changeJob(db: SqliteDatabase, project: string, jobId = 'job-1'): ChangeJob {
  const writer = new TraceWriter(db, { flushDelayMs: 1000 })
  const job = sampleJob({ id: jobId, project })
  writer.createJob(job)
  const now = fixedClock()
  const emit = <T extends EventType>(name: AgentName | null, type: T, data: EventData<T>) => {
    const parent = name === null ? null : parents[name]
    writer.append(
      newEvent(
        type,
        {
          ts: now(),
          job_id: jobId,
          agent_id: name === null ? null : agentIds[name],
          parent_id: parent === null ? null : agentIds[parent],
          depth: name === null ? null : depths[name],
        },
        data,
      ),
    )
  }
  emit(null, 'job.start', { task: job.task, settings: job.settings })
  for (const name of ['root', 'a', 'b', 'a1'] as const) {
    emit(name, 'agent.start', {
      profile: 'general',
      model: 'scripted-main',
      task: `task of ${name}`,
      label: name,
      tools: ['write_file'],
      max_steps: 20,
      context_token_budget: 100_000,
      total_token_budget: 500_000,
    })
  }
  let calls = 0
  const stored = (bytes: Buffer | null, store: boolean): string | null =>
    bytes === null ? null : store ? putFileContent(db, bytes) : fileContentHash(bytes)
  const read = (file: string): Buffer | null => {
    try {
      return readFileSync(file)
    } catch {
      return null
    }
  }
  return {
    writer,
    project,
    change(agent, path, text, options = {}) {
      const store = options.store ?? true
      const from = join(project, path)
      const before = read(from)
      let kind: FileChangeKind
      let target = path
      if (options.to !== undefined) {
        target = options.to
        mkdirSync(dirname(join(project, target)), { recursive: true })
        renameSync(from, join(project, target))
        kind = 'renamed'
      } else if (text === null) {
        rmSync(from)
        kind = 'deleted'
      } else {
        mkdirSync(dirname(from), { recursive: true })
        writeFileSync(from, text)
        kind = before === null ? 'created' : 'modified'
      }
      const after = read(join(project, target))
      const call = options.call ?? `call-${++calls}`
      emit(agent, 'tool.call', { call_id: call, name: 'write_file', arguments: { path } })
      emit(agent, 'file.change', {
        path: target,
        kind,
        ...(kind === 'renamed' ? { from_path: path } : {}),
        by_tool_call: call,
        tool: 'write_file',
        bytes_before: before?.byteLength ?? null,
        bytes_after: after?.byteLength ?? null,
        hash_before: stored(before, store),
        hash_after: stored(after, store),
        content_stored: store,
      })
      writer.flush()
    },
    end(agent, status = 'completed') {
      emit(agent, 'agent.end', {
        status,
        terminal_reason: 'completed',
        result: 'done',
        summary: 'done',
        usage: { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
        cost_usd: null,
        steps: 1,
        tool_usage: {},
        duration_ms: 1,
      })
      writer.flush()
    },
  }
}
