import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultSettings } from '../engine'
import { complete, createTestRig, taskCall, type TestRig } from '../supervisor/testing'
import { eventTypes } from '../trace/events'
import type { JobSettings, ScriptPlan } from '../trace/model'
import { traceJsonSchemaText } from '../trace/json-schema'
import { openDatabase } from './database'
import { exportJobJsonl } from './export'
import { importTraceFile } from '../import/import-job'
import { useTempDir } from './testing/temp-dir'
import { openaiErrors, startFakeOpenAI } from '../providers/testing/fake-openai'

const schemaFile = new URL('../../../docs/trace.schema.json', import.meta.url)
const committed = readFileSync(schemaFile, 'utf8')
const schema = JSON.parse(committed) as Record<string, unknown>

/** ajv, a kept JSON Schema validator, compiling the committed file: the published format. */
const ajv = new Ajv2020({ allErrors: true, strict: true })
ajv.addFormat('date-time', { type: 'string', validate: (text: string) => !Number.isNaN(Date.parse(text)) })
const validateLine = ajv.compile(schema)
const problems = (value: unknown): string[] =>
  validateLine(value) ? [] : (validateLine.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`)

let rig: TestRig | undefined
afterEach(async () => {
  await rig?.engine.close()
  rig = undefined
})

/** A project with a profile whose context budget forces compaction, and one that fails to load. */
function writeProfiles(project: string): void {
  mkdirSync(join(project, '.arbor', 'agents'), { recursive: true })
  const squeezed =
    '---\nname: squeezed\ndescription: Reads with a tiny context.\ntools: [read_file, list_files, attempt_completion]\ncontext_token_budget: 1000\n---\n\nYou read files.\n'
  writeFileSync(join(project, '.arbor', 'agents', 'squeezed.md'), squeezed)
  writeFileSync(join(project, '.arbor', 'agents', 'broken.md'), '---\nname: broken\ndescription: [unclosed\n---\nbody\n')
}

/**
 * Two real jobs through the engine (forked agent processes, scripted model, SQLite): between them
 * every event type of the format is recorded.
 */
async function runRealJobs(): Promise<string[]> {
  const { engine, project } = (rig = createTestRig({ heartbeat: { intervalMs: 100, unresponsiveAfterMs: 1500 } }))
  writeProfiles(project)
  writeFileSync(join(project, 'notes.txt'), 'A line of notes that fills the context.\n'.repeat(60))
  const start = (script: ScriptPlan, settings: Partial<JobSettings>, spawnPaused = false) =>
    engine.supervisor.startJob({
      project,
      task: 'schema job',
      settings: defaultSettings({ ...settings, script }),
      loadedProfiles: engine.profilesFor(project),
      spawnPaused,
    })

  // Two children, one at a time (the second is queued); a risky command denied, a spawn too deep,
  // arguments that fail their schema, a context small enough to compact; a profile that fails to load.
  const reading = { tool_calls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }
  const first = start(
    {
      root: [
        { tool_calls: [taskCall('Cleaner', 'general'), taskCall('Squeezed reader', 'squeezed')] },
        complete('root done'),
        complete('followed up'),
      ],
      children: {
        Cleaner: [
          { tool_calls: [{ name: 'bash', arguments: { command: 'rm -r build' } }] },
          { tool_calls: [{ name: 'write_file', arguments: { path: 'cleaned.txt', content: 'clean\n' } }] },
          { tool_calls: [taskCall('Too deep')] },
          { tool_calls: [{ name: 'read_file', arguments: { path: 42 } }] },
          complete('cleaned'),
        ],
        'Squeezed reader': [...Array.from({ length: 6 }, () => reading), complete('read')],
      },
    },
    { max_depth: 1, max_concurrent_children: 1 },
  )
  await engine.waitForJob(first)
  // A follow-up: the root resumes (agent.resume) and the job ends again.
  await engine.handlers.followUp({ job_id: first, text: 'and one more thing' })
  await engine.waitForJob(first)

  // Spawning paused (the child is held, then released), and a token cap: warned at 80 %, then
  // the lister paused at it (agent.wait) until the cap is raised (a control set_budget).
  const listing = { delay_ms: 50, tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] }
  const second = start(
    {
      root: [{ tool_calls: [taskCall('Lister')] }, complete('listed')],
      children: { Lister: [...Array.from({ length: 12 }, () => listing), complete('listed')] },
    },
    { job_token_budget: 8000 },
    true,
  )
  await rig.waitFor((event) => event.type === 'subagent.held')
  await engine.handlers.setSpawnPaused({ job_id: second, paused: false })
  await rig.waitFor((event) => event.type === 'agent.wait' && event.job_id === second)
  await engine.handlers.setBudget({ job_id: second, tokens: 1_000_000 })
  await engine.waitForJob(second)

  // The user wraps the root up while its command runs (agent.wrap_up, requested then delivered).
  const third = start(
    { root: [{ tool_calls: [{ name: 'bash', arguments: { command: 'sleep 1' } }] }, complete('wrapped up')], children: {} },
    {},
  )
  const root = engine.supervisor.rootAgentId(third)!
  await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === root)
  engine.supervisor.wrapUp(root)
  await engine.waitForJob(third)

  // The root's process is killed while its command runs: it restarts from its history (agent.restart).
  const fourth = start(
    { root: [{ tool_calls: [{ name: 'bash', arguments: { command: 'sleep 5' } }] }, complete('restarted')], children: {} },
    {},
  )
  const crashing = engine.supervisor.rootAgentId(fourth)!
  await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === crashing)
  process.kill(engine.supervisor.pidOf(crashing)!, 'SIGKILL')
  await engine.waitForJob(fourth)

  // The root's process is stopped while its command waits: unresponsive, then responsive (agent.health).
  const fifth = start(
    {
      root: [{ tool_calls: [{ name: 'bash', arguments: { command: 'until [ -f go ]; do sleep 0.1; done' } }] }, complete('went on')],
      children: {},
    },
    {},
  )
  const stopped = engine.supervisor.rootAgentId(fifth)!
  await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === stopped)
  const pid = engine.supervisor.pidOf(stopped)!
  process.kill(pid, 'SIGSTOP')
  await rig.waitFor((event) => event.type === 'agent.health' && event.agent_id === stopped)
  process.kill(pid, 'SIGCONT')
  writeFileSync(join(project, 'go'), '')
  await engine.waitForJob(fifth)

  // The project made a git repository: a child in its own worktree writes a file, committed on its branch (worktree).
  execFileSync('git', ['init', '-q', project])
  const isolated = {
    ...taskCall('Isolated writer', 'worker'),
    arguments: { ...taskCall('Isolated writer', 'worker').arguments, isolation: 'worktree' },
  }
  const write = { name: 'write_file', arguments: { path: 'isolated.txt', content: 'on its branch\n' } }
  const seventh = start(
    {
      root: [{ tool_calls: [isolated] }, complete('isolated')],
      children: { 'Isolated writer': [{ tool_calls: [write] }, complete('wrote')] },
    },
    {},
  )
  await engine.waitForJob(seventh)

  // A local OpenAI-compatible server that answers 429 until the call has waited once (agent.wait).
  const limited = Array.from({ length: 4 }, () => openaiErrors.rateLimit({ ms: 20 }))
  const server = await startFakeOpenAI({
    queue: [...limited, { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'waited' } }] }],
  })
  try {
    const sixth = start({ root: [], children: {} }, { provider: 'openai_compatible', model: 'llama3.1', base_url: `${server.url}/v1` })
    await engine.waitForJob(sixth)
    return [first, second, third, fourth, fifth, sixth, seventh]
  } finally {
    await server.close()
  }
}

describe('docs/trace.schema.json', () => {
  const tempDir = useTempDir()

  it('is exactly what the zod union of core/trace generates (run `npm run trace-schema` after changing it)', () => {
    expect(committed).toBe(traceJsonSchemaText())
  })

  it('names every event type, each with its own data schema', () => {
    const defs = schema.$defs as Record<string, { properties?: { type?: { const?: string } } }>
    for (const type of eventTypes) expect(defs[`event.${type}`]?.properties?.type?.const, type).toBe(type)
  })

  it("accepts every line of real jobs' exports, which hold every event type, and of their re-import's export", async () => {
    const jobIds = await runRealJobs()
    const dbFile = join(tempDir(), 'imported.db')
    const seen = new Set<string>()
    for (const jobId of jobIds) {
      const file = join(tempDir(), `${jobId}.jsonl`)
      await rig!.engine.exportJsonl(jobId, file)
      const lines = readFileSync(file, 'utf8').trimEnd().split('\n')
      lines.forEach((line, index) => expect(problems(JSON.parse(line)), `${jobId} line ${index + 1}: ${line.slice(0, 200)}`).toEqual([]))
      for (const line of lines.slice(1)) seen.add((JSON.parse(line) as { type: string }).type)

      const db = openDatabase(dbFile)
      importTraceFile(db, file)
      const again = join(tempDir(), `${jobId}.again.jsonl`)
      await exportJobJsonl(db, jobId, again)
      db.close()
      const reexported = readFileSync(again, 'utf8').trimEnd().split('\n')
      reexported.forEach((line, index) => expect(problems(JSON.parse(line)), `re-export line ${index + 1}`).toEqual([]))
      // Export → import → export is the same file, `exported_at` aside.
      const withoutExportTime = (text: string) => text.replace(/"exported_at":"[^"]*"/, '')
      expect(reexported.map(withoutExportTime)).toEqual(lines.map(withoutExportTime))
    }
    expect([...seen].sort()).toEqual([...eventTypes].sort())
  }, 90_000)

  it('rejects lines with missing keys, wrong types or unknown event types, saying where', () => {
    const event = { type: 'llm.call', seq: 1, ts: '2026-12-01T10:00:00.000Z', job_id: 'j', agent_id: 'a', parent_id: null, depth: 0 }
    const usage = { input_tokens: 1, output_tokens: 1, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }
    const data = { provider: 'openai', model: 'm', usage, cost_usd: null, duration_ms: 1, finish_reason: 'stop' }
    expect(problems({ ...event, data })).toEqual([])
    expect(problems(event).join()).toMatch(/must have required property 'data'/)
    expect(problems({ ...event, data: { ...data, usage: undefined } }).join()).toMatch(/required property 'usage'/)
    expect(problems({ ...event, data: { ...data, cost_usd: '0.1' } }).join()).toMatch(/\/data\/cost_usd must be number/)
    expect(problems({ ...event, seq: 0, data }).join()).toMatch(/\/seq must be > 0/)
    expect(problems({ ...event, type: 'llm.cal', data }).length).toBeGreaterThan(0)
    expect(problems({ ...event, data, extra: 1 }).join()).toMatch(/must NOT have additional properties/)
    expect(problems({ type: 'trace.header', format: 'arbor-trace', version: 2 }).join()).toMatch(/must be equal to constant/)
  })
})
