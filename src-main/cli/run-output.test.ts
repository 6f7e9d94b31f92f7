import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { FakeServer } from '../core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../core/providers/testing/fake-openai'
import type { TraceEvent } from '../core/trace/events'
import { formatCost } from './tree-printer'

/**
 * What `arbor run` prints when a job ends: the root's answer, costs where a price is known, and
 * with `--json` one outcome object on stdout. The real CLI process against the fake OpenAI
 * server, with real agent processes.
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const exec = promisify(execFile)
const rootAnswer = 'The tax rate is 20%, applied in src/tax.ts by withTax().\nNothing else touches it.'

function fixture(): { project: string; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-output-'))
  const project = path.join(dir, 'shop')
  mkdirSync(path.join(project, 'src'), { recursive: true })
  writeFileSync(path.join(project, 'src/tax.ts'), 'export const withTax = (amount: number) => amount * 1.2\n')
  return { project, dir }
}

/** The root hands one explore child the tax file, then answers `rootAnswer`. */
const delegatingScripts = [
  {
    match: 'AREA-TAX',
    turns: [
      { text: 'Reading src/tax.ts.', tool_calls: [{ name: 'read_file', arguments: { path: 'src/tax.ts' } }] },
      {
        tool_calls: [
          {
            name: 'attempt_completion',
            arguments: {
              result: JSON.stringify({
                status: 'completed',
                summary: 'withTax multiplies by 1.2',
                findings: ['src/tax.ts was read'],
                evidence: ['src/tax.ts:1'],
                unresolved_questions: [],
              }),
            },
          },
        ],
      },
    ],
  },
  {
    match: 'ROOT-TASK',
    turns: [
      {
        text: 'Delegating the tax file.',
        tool_calls: [
          {
            name: 'task',
            arguments: { description: 'AREA-TAX', prompt: 'Survey AREA-TAX and report as explore JSON.', subagent_type: 'explore' },
          },
        ],
      },
      { tool_calls: [{ name: 'attempt_completion', arguments: { result: rootAnswer } }] },
    ],
  },
]

/** The root answers at once, no children. */
const directScripts = [{ match: 'ROOT-TASK', turns: [{ tool_calls: [{ name: 'attempt_completion', arguments: { result: rootAnswer } }] }] }]

let server: FakeServer<unknown> | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

async function arborRun(scripts: Parameters<typeof openaiConversations>[0], model: string, extra: string[] = []) {
  server = (await startFakeOpenAI({ route: openaiConversations(scripts) })) as FakeServer<unknown>
  const { project, dir } = fixture()
  const exportFile = path.join(dir, 'trace.jsonl')
  const { stdout, stderr } = await exec(
    process.execPath,
    [
      '--import',
      'tsx',
      cli,
      'run',
      project,
      '--task',
      'ROOT-TASK: where is tax computed?',
      '--provider',
      'openai',
      '--model',
      model,
      '--base-url',
      `${server.url}/v1`,
      '--db',
      path.join(dir, 'arbor.db'),
      '--export',
      exportFile,
      ...extra,
    ],
    { env: { ...process.env, OPENAI_API_KEY: 'sk-test-output' }, timeout: 30_000 },
  )
  const events: TraceEvent[] = readFileSync(exportFile, 'utf8')
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => JSON.parse(line))
  return { stdout, stderr, events, dbFile: path.join(dir, 'arbor.db') }
}

const jobEndOf = (events: TraceEvent[]): TraceEvent => events.find((event) => event.type === 'job.end')!
const rootEndOf = (events: TraceEvent[]): TraceEvent => events.find((event) => event.type === 'agent.end' && event.depth === 0)!

describe('arbor run output', () => {
  it('prints the root result after the tree and the cost on end lines and in the summary', async () => {
    const { stdout, events } = await arborRun(delegatingScripts, 'gpt-4o')
    const lines = stdout.trimEnd().split('\n')
    const summaryAt = lines.findIndex((line) => /^\d+ agents, /.test(line))
    const resultAt = lines.indexOf('result:')
    const treeEnd = lines.findIndex((line) => /^job \S+ completed$/.test(line))
    expect(treeEnd).toBeGreaterThan(0)
    expect(resultAt).toBe(treeEnd + 1)
    expect(summaryAt).toBe(lines.length - 2) // the last line is the export notice
    expect(lines.slice(resultAt + 1, summaryAt).join('\n')).toBe(rootAnswer)

    const rootEnd = rootEndOf(events)
    expect(rootEnd.data.result).toBe(rootAnswer)
    const rootCost = rootEnd.data.cost_usd as number
    expect(rootCost).toBeGreaterThan(0)
    expect(lines).toContain(`■ root completed (completed, 2 steps, ${tokensOf(rootEnd)} tokens, ${formatCost(rootCost)})`)
    const childEnd = events.find((event) => event.type === 'agent.end' && event.depth === 1)!
    expect(lines).toContain(
      `  ■ AREA-TAX completed (completed, 2 steps, ${tokensOf(childEnd)} tokens, ${formatCost(childEnd.data.cost_usd as number)})`,
    )

    const jobEnd = jobEndOf(events)
    const jobCost = jobEnd.data.cost_usd as number
    expect(jobCost).toBeGreaterThan(0)
    expect(lines[summaryAt]).toMatch(new RegExp(`^2 agents, ${tokensOf(jobEnd)} tokens, \\$\\d+\\.\\d{4}, \\d+\\.\\d s; trace in `))
    expect(lines[summaryAt]).toContain(`, ${formatCost(jobCost)}, `)
  }, 60_000)

  it('--json prints exactly one JSON object on stdout that matches the trace; the tree goes to stderr', async () => {
    const { stdout, stderr, events, dbFile } = await arborRun(delegatingScripts, 'gpt-4o', ['--json'])
    expect(stdout.endsWith('}\n')).toBe(true)
    expect(stdout.trimEnd().split('\n')).toHaveLength(1)
    const outcome = JSON.parse(stdout) as {
      job_id: string
      status: string
      result: unknown
      usage: Record<string, number>
      cost_usd: number | null
      duration_ms: number
      trace_db: string
      agents: {
        id: string
        parent_id: string | null
        depth: number
        label: string
        profile: string
        model: string
        status: string
        terminal_reason: string
        steps: number
        usage: Record<string, number>
        cost_usd: number | null
      }[]
    }
    expect(Object.keys(outcome)).toEqual(['job_id', 'status', 'result', 'usage', 'cost_usd', 'duration_ms', 'trace_db', 'agents'])

    const jobEnd = jobEndOf(events)
    expect(outcome.job_id).toBe(jobEnd.job_id)
    expect(outcome.status).toBe('completed')
    expect(outcome.status).toBe(jobEnd.data.status)
    expect(outcome.result).toBe(rootAnswer)
    expect(outcome.result).toBe(rootEndOf(events).data.result)
    expect(outcome.usage).toEqual(jobEnd.data.usage)
    expect(Object.keys(outcome.usage).sort()).toEqual([
      'cache_read_tokens',
      'cache_write_tokens',
      'input_tokens',
      'output_tokens',
      'reasoning_tokens',
    ])
    expect(outcome.cost_usd).toBe(jobEnd.data.cost_usd)
    expect(outcome.cost_usd).toBeGreaterThan(0)
    expect(outcome.duration_ms).toBeGreaterThan(0)
    expect(outcome.trace_db).toBe(dbFile)

    const starts = events.filter((event) => event.type === 'agent.start')
    expect(outcome.agents).toHaveLength(starts.length)
    expect(outcome.agents).toHaveLength(2)
    const summedCost = outcome.agents.reduce((total, agent) => total + (agent.cost_usd ?? 0), 0)
    expect(Math.abs(summedCost - outcome.cost_usd!)).toBeLessThan(1e-9)
    for (const agent of outcome.agents) {
      const end = events.find((event) => event.type === 'agent.end' && event.agent_id === agent.id)!
      expect(agent).toMatchObject({
        status: end.data.status,
        terminal_reason: end.data.terminal_reason,
        steps: end.data.steps,
        usage: end.data.usage,
        cost_usd: end.data.cost_usd,
        model: 'gpt-4o',
      })
    }
    const [root, child] = outcome.agents
    expect(root).toMatchObject({ parent_id: null, depth: 0, label: 'root', profile: 'general' })
    expect(child).toMatchObject({ parent_id: root!.id, depth: 1, label: 'AREA-TAX', profile: 'explore' })

    // The live tree and the export notice went to stderr.
    expect(stderr).toContain('■ root completed')
    expect(stderr).toContain('exported ')
    expect(stdout).not.toContain('■')
  }, 60_000)

  it('shows no cost anywhere for a model without a price', async () => {
    const { stdout, stderr, events } = await arborRun(directScripts, 'my-local-model')
    expect(jobEndOf(events).data.cost_usd).toBeNull()
    expect(stdout).toContain(`result:\n${rootAnswer}\n1 agents, `)
    expect(stdout).toMatch(/■ root completed \(completed, 1 steps, \d+ tokens\)/)
    expect(stdout + stderr).not.toContain('$')

    const json = await arborRun(directScripts, 'my-local-model', ['--json'])
    const outcome = JSON.parse(json.stdout) as { cost_usd: number | null; agents: { cost_usd: number | null }[]; result: unknown }
    expect(outcome.cost_usd).toBeNull()
    expect(outcome.agents.map((agent) => agent.cost_usd)).toEqual([null])
    expect(outcome.result).toBe(rootAnswer)
    expect(json.stdout + json.stderr).not.toContain('$')
  }, 60_000)

  it('--json with a usage error prints nothing on stdout and exits 2', async () => {
    const failed = await exec(process.execPath, ['--import', 'tsx', cli, 'run', '--json'], { timeout: 15_000 }).then(
      () => null,
      (error: { code: number; stdout: string; stderr: string }) => error,
    )
    expect(failed?.code).toBe(2)
    expect(failed?.stdout).toBe('')
    expect(failed?.stderr).toContain('run needs --task TEXT')
  }, 60_000)
})

const tokensOf = (event: TraceEvent): number => {
  const usage = event.data.usage as { input_tokens: number; output_tokens: number }
  return usage.input_tokens + usage.output_tokens
}
