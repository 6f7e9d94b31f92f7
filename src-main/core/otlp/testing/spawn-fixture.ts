import { join } from 'node:path'
import { openDatabase, type SqliteDatabase } from '../../store/database'
import { sampleJob, sampleJobEvents } from '../../store/testing/job-fixture'
import { TraceWriter } from '../../store/trace-writer'
import type { NewTraceEvent } from '../../trace/events'
import type { Job } from '../../trace/model'

/**
 * The store's sample job as a real agent records it: the root's `task` call is a `tool.call` /
 * `tool.result` pair around the spawn (the sample job has only the subagent.* events), so the
 * child's span can hang under the `execute_tool task` span.
 */
export function spawnJobEvents(job: Job = sampleJob()): NewTraceEvent[] {
  const events = sampleJobEvents(job)
  const request = events.findIndex((event) => event.type === 'subagent.request')
  const taskCall: NewTraceEvent = {
    ...events[request]!,
    type: 'tool.call',
    data: { call_id: 'call-1', name: 'task', arguments: { description: 'map the repo' } },
  }
  const withCall = [...events.slice(0, request), taskCall, ...events.slice(request)]
  const ended = withCall.findIndex((event) => event.type === 'subagent.end')
  const taskResult: NewTraceEvent = {
    ...withCall[ended]!,
    type: 'tool.result',
    data: { call_id: 'call-1', name: 'task', ok: true, output: '{"status":"completed"}', truncated: false, duration_ms: 9000 },
  }
  return [...withCall.slice(0, ended + 1), taskResult, ...withCall.slice(ended + 1)]
}

/** A database in `dir` holding `job` with `events`. */
export function storeJob(dir: string, job: Job, events: NewTraceEvent[], file = 'arbor.db'): SqliteDatabase {
  const db = openDatabase(join(dir, file))
  const writer = new TraceWriter(db)
  writer.createJob(job)
  for (const event of events) writer.append(event)
  writer.flush()
  writer.close()
  return db
}
