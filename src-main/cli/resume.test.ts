import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { checkOtlpJson } from '../core/otlp/testing/otlp-proto'
import type { ConversationView, RecordedRequest } from '../core/providers/testing/fake-http'
import { openaiConversations, openaiView, startFakeOpenAI, type FakeOpenAIResponse } from '../core/providers/testing/fake-openai'
import Database from 'better-sqlite3'
import { getAgents } from '../core/store/queries'
import { interruptedToolResult } from '../core/supervisor/resume-job'
import { useCleanups } from '../core/testing/cleanups'
import { waitUntil } from '../core/testing/processes'
import type { TraceEvent } from '../core/trace/events'

/**
 * `arbor run` SIGKILLed mid-job, then `arbor resume --last` on the same database: the real CLI
 * (the built one, bin/arbor.js, when `npm run build` made it; else from source), real agent
 * processes, a real SQLite file, a local server streaming as OpenAI does. The root asks for three
 * workers with room for one: the first to start completes, the second runs a command that never
 * ends, the third waits queued. That is the state the CLI is killed in.
 */
const { cleanups, tempDir } = useCleanups('arbor-resume-')
const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
const built = existsSync(path.join(repoRoot, 'out/main/cli.js'))
const entry = built ? [path.join(repoRoot, 'bin/arbor.js')] : ['--import', 'tsx', path.join(repoRoot, 'src-main/cli/main.ts')]

const finish = (result: string): FakeOpenAIResponse => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const waitForGo: FakeOpenAIResponse = { tool_calls: [{ name: 'bash', arguments: { command: 'until [ -f go ]; do sleep 0.1; done' } }] }
const awaitAll: FakeOpenAIResponse = { tool_calls: [{ name: 'await_tasks', arguments: {} }] }
const children = ['CHILD-A', 'CHILD-B', 'CHILD-C']
const delegate: FakeOpenAIResponse = {
  tool_calls: children.map((marker) => ({
    name: 'task',
    arguments: { description: marker, subagent_type: 'worker', prompt: `${marker}: look at the shop.` },
  })),
}

/** The model: each child's part is decided by the order children first ask (quick, slow, last), whichever the supervisor started first. */
function model() {
  const roles = new Map<string, 'quick' | 'slow' | 'last'>()
  const roleOf = (view: ConversationView) => {
    const marker = children.find((each) => view.first_user.includes(each))!
    if (!roles.has(marker)) roles.set(marker, (['quick', 'slow', 'last'] as const)[roles.size]!)
    return { marker, role: roles.get(marker)! }
  }
  const first = (view: ConversationView): FakeOpenAIResponse => {
    const { marker, role } = roleOf(view)
    return role === 'slow' ? waitForGo : finish(`${marker} DONE (${role})`)
  }
  return {
    roles,
    route: openaiConversations([
      { match: /CHILD-[ABC]/, turns: [first, (view) => finish(`${roleOf(view).marker} DONE AFTER RESUME`)] },
      // Told its children go on in the background, the resumed root awaits them, then answers.
      { match: 'ROOT-TASK', turns: [delegate, awaitAll, awaitAll, finish('ROOT DONE')] },
    ]),
  }
}

function arbor(args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [...entry, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  )
  return { child, exited, output: () => stdout + stderr }
}

interface OtlpSpan {
  spanId: string
  parentSpanId?: string
  name: string
  status: { code: number }
}

const messagesOf = (request: RecordedRequest) => (request.body as { messages: Array<{ role: string; content: string }> }).messages
const requestsOf = (requests: RecordedRequest[], marker: string) =>
  requests.filter((request) => openaiView(request).first_user.includes(marker))

/** The database as another reader sees it while the CLI writes (no migrations, no writes). */
const reader = (dbFile: string) => new Database(dbFile, { readonly: true, fileMustExist: true })

function storedEvents(dbFile: string, jobId: string): TraceEvent[] {
  const db = reader(dbFile)
  try {
    return db
      .prepare<[string], { seq: number; type: string; agent_id: string | null; data: string }>(
        'SELECT seq, type, agent_id, data FROM events WHERE job_id = ? ORDER BY seq',
      )
      .all(jobId)
      .map((row) => ({ ...row, data: JSON.parse(row.data) }) as unknown as TraceEvent)
  } finally {
    db.close()
  }
}

describe('arbor resume after arbor run was SIGKILLed', () => {
  it(
    'runs the completed child never again, continues the running one from its history, starts the queued one; totals add up once',
    { timeout: 240_000 },
    async () => {
      const { route, roles } = model()
      const server = await startFakeOpenAI({ route })
      cleanups.push(() => server.close())
      const dir = tempDir()
      const project = path.join(dir, 'shop')
      mkdirSync(project)
      writeFileSync(path.join(project, 'README.md'), '# Shop\n')
      const dbFile = path.join(dir, 'data', 'arbor.db')
      const env = { OPENAI_API_KEY: 'sk-test-resume-0000', ARBOR_DATA_DIR: path.dirname(dbFile) }
      const run = arbor(
        [
          'run',
          project,
          '--task',
          'ROOT-TASK: survey the shop with three workers',
          '--provider',
          'openai',
          '--model',
          'gpt-4o',
          '--base-url',
          `${server.url}/v1`,
          '--max-children',
          '1',
          '--db',
          dbFile,
        ],
        env,
      )
      cleanups.push(() => {
        run.child.kill('SIGKILL')
      })
      // Killed once the trace holds the state to resume from: one child completed, one in its command, one queued.
      await waitUntil(
        () => {
          if (!existsSync(dbFile)) return false
          const db = reader(dbFile)
          try {
            const job = db.prepare<[], { id: string }>('SELECT id FROM jobs').get()
            const statuses = job ? getAgents(db, job.id).map((agent) => `${agent.status}/${agent.current_tool ?? ''}`) : []
            return ['completed/', 'running/bash', 'queued/'].every((status) => statuses.includes(status))
          } catch {
            // Not created yet: the CLI is still setting the database up.
            return false
          } finally {
            db.close()
          }
        },
        { timeoutMs: 90_000, what: 'a child completed, one runs bash, one is queued', describe: run.output },
      )
      run.child.kill('SIGKILL')
      expect(await run.exited).toMatchObject({ signal: 'SIGKILL' })
      const before = server.requests.length
      const quick = [...roles].find(([, role]) => role === 'quick')![0]
      const slow = [...roles].find(([, role]) => role === 'slow')![0]
      const last = children.find((marker) => marker !== quick && marker !== slow)!
      expect(requestsOf(server.requests, last)).toHaveLength(0)

      const started = Date.now()
      const resumed = await arbor(['resume', '--last', '--db', dbFile, '--json'], env).exited
      expect(resumed.code, resumed.stderr).toBe(0)
      const outcome = JSON.parse(resumed.stdout) as {
        job_id: string
        status: string
        result: unknown
        usage: { input_tokens: number; output_tokens: number }
        agents: Array<{ label: string; status: string }>
      }
      const firstCall = server.requests[before]!.received_at - started
      console.log(
        `arbor resume (${built ? 'built' : 'source'} CLI): first model request ${firstCall} ms after the command started, the job completed after ${Date.now() - started} ms; ${server.requests.length - before} model requests after the kill, none of them repeated`,
      )
      expect(outcome).toMatchObject({ status: 'completed', result: 'ROOT DONE' })
      expect(outcome.agents.map((agent) => agent.status)).toEqual(['completed', 'completed', 'completed', 'completed'])
      expect(resumed.stderr).toContain(`resuming job ${outcome.job_id}: 3 agents go on`)
      expect(resumed.stderr).toContain(`job ${outcome.job_id} resumed after it was interrupted`)
      expect(resumed.stderr).toContain('↻ root goes on after the job was interrupted (from step 1)')
      expect(resumed.stderr).toContain(`↻ ${slow} goes on after the job was interrupted (from step 1)`)
      expect(resumed.stderr).toContain(`… ${last} queued`)

      // The completed child is not run again; the queued one ran once, after the resume.
      expect(requestsOf(server.requests, quick)).toHaveLength(1)
      expect(requestsOf(server.requests, last)).toHaveLength(1)
      // The running one went on from its history: its first request, its command, that command answered as interrupted.
      const [slowBefore, slowAfter] = requestsOf(server.requests, slow).map(messagesOf)
      expect(requestsOf(server.requests, slow)).toHaveLength(2)
      expect(JSON.stringify(slowAfter!.slice(0, slowBefore!.length))).toBe(JSON.stringify(slowBefore))
      expect(slowAfter!.slice(slowBefore!.length)).toEqual([
        expect.objectContaining({ role: 'assistant' }),
        expect.objectContaining({ role: 'tool', content: interruptedToolResult }),
      ])
      // The root's task call gets the completed child's envelope, and the others are said to go on.
      const rootRequests = requestsOf(server.requests, 'ROOT-TASK')
      expect(rootRequests).toHaveLength(4)
      const rootAfter = openaiView(rootRequests[1]!)
      expect(JSON.stringify(messagesOf(rootRequests[1]!).slice(0, messagesOf(rootRequests[0]!).length))).toBe(
        JSON.stringify(messagesOf(rootRequests[0]!)),
      )
      expect(rootAfter.tool_results).toHaveLength(3)
      expect(rootAfter.tool_results.filter((result) => result.content.includes(`${quick} DONE (quick)`))).toHaveLength(1)
      expect(rootAfter.tool_results.filter((result) => result.content.includes('goes on in the background'))).toHaveLength(2)

      // The trace: the job interrupted, resumed, completed; the continued agents marked; usage counted once.
      const events = storedEvents(dbFile, outcome.job_id)
      const ofType = <T extends TraceEvent['type']>(type: T) =>
        events.filter((event) => event.type === type) as Array<Extract<TraceEvent, { type: T }>>
      expect(ofType('job.end').map((event) => event.data.status)).toEqual(['interrupted', 'completed'])
      expect(ofType('control').filter((event) => event.data.action === 'resume_job')).toHaveLength(1)
      expect(ofType('agent.restart').map((event) => event.data.cause)).toEqual(['interrupted', 'interrupted'])
      expect(ofType('agent.start')).toHaveLength(4)
      const sweptEnds = ofType('agent.end').filter((event) => event.data.interrupted)
      expect(sweptEnds.map((event) => event.data.interrupted_status).sort()).toEqual(['queued', 'running', 'running'])
      const calls = ofType('llm.call')
      expect(calls).toHaveLength(server.requests.length)
      const sum = (key: 'input_tokens' | 'output_tokens') => calls.reduce((total, event) => total + event.data.usage[key], 0)
      expect(outcome.usage).toMatchObject({ input_tokens: sum('input_tokens'), output_tokens: sum('output_tokens') })

      // Its OTLP export is valid: unique span ids, every parent there, the job's span ended once, completed; the
      // resumed agents' runs are spans of their own, and the command the interruption cut short ended as an error.
      const otlpFile = path.join(dir, 'resumed.otlp.json')
      const exported = await arbor(['export', '--db', dbFile, '--last', '--out', otlpFile, '--format', 'otlp'], env).exited
      expect(exported.code, exported.stderr).toBe(0)
      const document = JSON.parse(readFileSync(otlpFile, 'utf8')) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }
      expect(checkOtlpJson(document).errors).toEqual([])
      const spans = document.resourceSpans[0]!.scopeSpans[0]!.spans
      const ids = new Set(spans.map((span) => span.spanId))
      expect(ids.size).toBe(spans.length)
      for (const span of spans) if (span.parentSpanId) expect(ids.has(span.parentSpanId), span.name).toBe(true)
      const workflow = spans.filter((span) => span.name === 'invoke_workflow arbor')
      expect(workflow).toHaveLength(1)
      expect(workflow[0]!.status.code).toBe(1)
      expect(spans.filter((span) => span.name.endsWith('(resumed)'))).toHaveLength(2)
      expect(spans.filter((span) => span.name === 'execute_tool bash' && span.status.code === 2)).toHaveLength(1)
      expect(spans.filter((span) => span.name.startsWith('chat '))).toHaveLength(calls.length)

      // Resumed once, it is not interrupted any more.
      const again = await arbor(['resume', '--last', '--db', dbFile], env).exited
      expect(again.code).toBe(2)
      expect(again.stderr).toContain('is completed, not interrupted')
    },
  )
})
