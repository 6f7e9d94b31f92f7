import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { z } from 'zod'
import { traceEventSchema, traceHeaderSchema, type TerminalReason, type TraceEvent } from '../trace/events'
import { fileContentLineSchema, type FileContentLine } from '../trace/file-content-line'
import type { AgentNode, Job, JobSettings } from '../trace/model'
import { reduceAgents, reduceJob } from '../trace/projection'
import { emptyUsage } from '../trace/usage'
import { TraceParseError } from './errors'
import { traceFormatVersion } from './export'

const headerSchema = traceHeaderSchema

/** The header line; its settings as the engine types them (the schema checks every field it names). */
export type TraceHeader = Omit<z.infer<typeof headerSchema>, 'job'> & {
  job: Omit<z.infer<typeof headerSchema>['job'], 'settings'> & { settings: JobSettings }
}

export interface ParsedTrace {
  header: TraceHeader
  events: TraceEvent[]
}

/**
 * Parses a trace JSONL (docs/trace-format.md) given as text or as lines. Every line is
 * validated (header with its schema, events with traceEventSchema, seq strictly increasing,
 * one job); the first bad line throws TraceParseError naming its 1-based number. Blank lines
 * are skipped.
 */
export function parseTrace(input: string | Iterable<string>): ParsedTrace {
  const events: TraceEvent[] = []
  const reader = new TraceReader((event) => events.push(event))
  for (const line of typeof input === 'string' ? input.split('\n') : input) reader.push(line)
  return { header: reader.finish(), events }
}

/** Same as parseTrace, reading a file line by line. */
export async function readTraceFile(path: string): Promise<ParsedTrace> {
  const events: TraceEvent[] = []
  const reader = new TraceReader((event) => events.push(event))
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity })
  for await (const line of lines) reader.push(line)
  return { header: reader.finish(), events }
}

/** Rebuilds the delegation tree by folding the same reducer the store applies. */
export function treeFromTrace(events: Iterable<TraceEvent>): AgentNode[] {
  const nodes = new Map<string, AgentNode>()
  for (const event of events) {
    for (const node of reduceAgents(event, (id) => nodes.get(id))) nodes.set(node.id, node)
  }
  return [...nodes.values()]
}

/**
 * Rebuilds the job from its header and events. The header does not carry the initial subagent
 * approval mode and spawn_paused flag, so they start off (deny, not paused) and follow `control`
 * events.
 */
export function jobFromTrace(trace: ParsedTrace): Job {
  let job: Job = {
    ...trace.header.job,
    ended_at: null,
    auto_approve: false,
    subagent_approvals: 'deny',
    spawn_paused: false,
    usage: emptyUsage(),
    cost_usd: null,
  }
  let rootReason: TerminalReason | undefined
  for (const event of trace.events) {
    job = reduceJob(job, event)
    if (event.type === 'agent.end' && event.parent_id === null) rootReason ??= event.data.terminal_reason
  }
  // As the store reads it: how the root ended, from its agent.end, whatever job.end says.
  return rootReason ? { ...job, end_reason: rootReason } : job
}

/**
 * Checks a trace one line at a time and hands each valid event on, so a file of any size is read
 * without holding it: `onHeader` sees the header before the first event, `onEvent` each event.
 * The first bad line throws TraceParseError naming its 1-based number.
 */
export class TraceReader {
  private lineNumber = 0
  private header: TraceHeader | null = null
  private lastSeq = 0
  private sawJobEnd = false

  constructor(
    private readonly onEvent: (event: TraceEvent, line: number) => void,
    private readonly onHeader?: (header: TraceHeader, line: number) => void,
    /** A `file.content` line (an export with file contents); without this, such lines are checked and skipped. */
    private readonly onContent?: (content: FileContentLine, line: number) => void,
  ) {}

  get line(): number {
    return this.lineNumber
  }

  /** Whether a `job.end` event was read: a trace of a finished job that has none was cut short. */
  get ended(): boolean {
    return this.sawJobEnd
  }

  push(raw: string): void {
    this.lineNumber++
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (text.trim() === '') return
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      this.fail(`not valid JSON${jsonErrorPlace((error as Error).message)}`)
    }
    if (this.header && (value as { type?: unknown } | null)?.type === 'file.content') return this.pushContent(value)
    if (this.header) return this.pushEvent(value, this.header)
    this.header = this.parseHeader(value)
    this.onHeader?.(this.header, this.lineNumber)
  }

  finish(): TraceHeader {
    if (!this.header) throw new TraceParseError(Math.max(1, this.lineNumber), 'the trace is empty: no trace.header line')
    return this.header
  }

  /** Also refuses a trace whose header says the job ended but whose `job.end` line is missing. */
  finishComplete(): TraceHeader {
    const header = this.finish()
    if (header.job.status !== 'running' && !this.sawJobEnd) {
      this.fail(`the file ends before the job's job.end event (the header says the job ${header.job.status}): it looks truncated`)
    }
    return header
  }

  private parseHeader(value: unknown): TraceHeader {
    const type = (value as { type?: unknown } | null)?.type
    if (type !== 'trace.header') this.fail(`expected the trace.header line first, found ${describeType(type)}`)
    const version = (value as { version?: unknown }).version
    if (typeof version === 'number' && version > traceFormatVersion) {
      this.fail(`trace format version ${version} is newer than this Arbor reads (version ${traceFormatVersion})`)
    }
    const parsed = headerSchema.safeParse(value)
    if (!parsed.success) this.fail(`invalid trace.header: ${describeIssues(parsed.error)}`)
    return parsed.data as unknown as TraceHeader
  }

  private pushEvent(value: unknown, header: TraceHeader): void {
    const parsed = traceEventSchema.safeParse(value)
    if (!parsed.success) {
      const type = (value as { type?: unknown } | null)?.type
      this.fail(`invalid event (${describeType(type)}): ${describeIssues(parsed.error)}`)
    }
    // The file's own data, checked but not rebuilt: parsing orders keys as the schema lists them,
    // and an imported job exports again line for line (docs/trace-format.md).
    const event = { ...parsed.data, data: (value as { data: TraceEvent['data'] }).data } as TraceEvent
    if (event.seq <= this.lastSeq) this.fail(`seq ${event.seq} is not greater than the previous event's seq ${this.lastSeq}`)
    if (event.job_id !== header.job.id) this.fail(`job_id ${event.job_id} does not match the header's job ${header.job.id}`)
    this.lastSeq = event.seq
    if (event.type === 'job.end') this.sawJobEnd = true
    this.onEvent(event, this.lineNumber)
  }

  private pushContent(value: unknown): void {
    const parsed = fileContentLineSchema.safeParse(value)
    if (!parsed.success) this.fail(`invalid file.content: ${describeIssues(parsed.error)}`)
    this.onContent?.(parsed.data, this.lineNumber)
  }

  private fail(detail: string): never {
    throw new TraceParseError(this.lineNumber, detail)
  }
}

/**
 * Where a line's JSON broke, without the text around it: a parse error quotes the line, and the
 * file may not be a trace at all (a path a caller chose), so none of its content is echoed.
 */
function jsonErrorPlace(message: string): string {
  const position = /position (\d+)/.exec(message)?.[1]
  if (position !== undefined) return ` (at column ${Number(position) + 1})`
  return /end of JSON input/i.test(message) ? ' (the line ends too early)' : ''
}

const describeType = (type: unknown): string => (typeof type === 'string' ? `type "${type}"` : 'no type')

const describeIssues = (error: z.ZodError): string =>
  error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length > 0 ? issue.path.join('.') : 'line'}: ${issue.message}`)
    .join('; ')
