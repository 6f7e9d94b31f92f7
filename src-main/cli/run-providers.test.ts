import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { anthropicConversations, startFakeAnthropic } from '../core/providers/testing/fake-anthropic'
import type { ConversationView, FakeServer } from '../core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../core/providers/testing/fake-openai'
import type { TraceEvent } from '../core/trace/events'
import { addUsage, emptyUsage, type Usage } from '../core/trace/usage'

/**
 * End to end through the real CLI process: `arbor run --provider openai|anthropic --base-url`
 * against a local server that streams the real wire format; real agent processes, real files.
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const run = promisify(execFile)
const areas = { 'AREA-DOCS': 'README.md', 'AREA-CART': 'src/cart.ts', 'AREA-TAX': 'src/tax.ts' } as const

function fixtureProject(): { project: string; dir: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-run-'))
  const project = path.join(dir, 'shop')
  mkdirSync(path.join(project, 'src'), { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Shop\n\nSells things; totals carts.\n')
  writeFileSync(path.join(project, 'src/cart.ts'), 'export const total = (prices: number[]) => prices.reduce((a, b) => a + b, 0)\n')
  writeFileSync(path.join(project, 'src/tax.ts'), 'export const withTax = (amount: number) => amount * 1.2\n')
  return { project, dir }
}

/** Each explore child reads its file, then answers explore JSON citing what it read. */
function childScript(area: keyof typeof areas) {
  const file = areas[area]
  return {
    match: area,
    turns: [
      { delay_ms: 400, text: `Reading ${file}.`, tool_calls: [{ name: 'read_file', arguments: { path: file } }] },
      (view: ConversationView) => {
        const content = view.tool_results[0]?.content ?? ''
        const firstLine = content.split('\n')[0] ?? ''
        return {
          delay_ms: 400,
          tool_calls: [
            {
              name: 'attempt_completion',
              arguments: {
                result: JSON.stringify({
                  status: 'completed',
                  summary: `${file} starts with: ${firstLine.replace(/^\s*\d+\t/, '')}`,
                  findings: [`${file} was read`],
                  evidence: [`${file}:1`],
                  unresolved_questions: [],
                }),
              },
            },
          ],
        }
      },
    ],
  }
}

const rootScript = {
  match: 'ROOT-TASK',
  turns: [
    {
      text: 'Splitting the survey in three.',
      tool_calls: Object.keys(areas).map((area) => ({
        name: 'task',
        arguments: { description: area, prompt: `Survey ${area} and report as explore JSON.`, subagent_type: 'explore' },
      })),
    },
    (view: ConversationView) => ({
      tool_calls: [{ name: 'attempt_completion', arguments: { result: `Merged ${view.tool_results.length} reports.` } }],
    }),
  ],
}

let server: FakeServer<unknown> | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

describe.each(['openai', 'anthropic'] as const)('arbor run --provider %s', (provider) => {
  it('delegates to 3 explore children that run at once, read real files, and whose usage sums to the job total', async () => {
    const scripts = [...Object.keys(areas).map((area) => childScript(area as keyof typeof areas)), rootScript]
    server =
      provider === 'openai'
        ? ((await startFakeOpenAI({ route: openaiConversations(scripts) })) as FakeServer<unknown>)
        : ((await startFakeAnthropic({ route: anthropicConversations(scripts) })) as FakeServer<unknown>)
    const { project, dir } = fixtureProject()
    const exportFile = path.join(dir, 'trace.jsonl')
    const model = provider === 'openai' ? 'gpt-4o-mini' : 'claude-haiku-4-5'
    const baseUrl = provider === 'openai' ? `${server.url}/v1` : server.url
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        'tsx',
        cli,
        'run',
        project,
        '--task',
        'ROOT-TASK: survey the shop',
        '--provider',
        provider,
        '--model',
        model,
        '--base-url',
        baseUrl,
        '--db',
        path.join(dir, 'arbor.db'),
        '--export',
        exportFile,
      ],
      {
        env: { ...process.env, OPENAI_API_KEY: 'sk-test-never-logged-123', ANTHROPIC_API_KEY: 'sk-ant-test-never-logged-123' },
        timeout: 60_000,
      },
    )
    expect(stdout).toContain('completed')

    const text = readFileSync(exportFile, 'utf8')
    expect(text).not.toContain('never-logged')
    const events: TraceEvent[] = text
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line))
    const ends = events.filter((event) => event.type === 'agent.end')
    const children = ends.filter((event) => event.depth === 1)
    expect(children).toHaveLength(3)
    for (const child of children) {
      expect(child.data).toMatchObject({ status: 'completed', terminal_reason: 'completed' })
      const result = child.data.result as { summary: string; evidence: string[] }
      const file = result.evidence[0]?.replace(/:1$/, '') ?? ''
      expect(Object.values(areas)).toContain(file)
      expect(result.summary).toContain(readFileSync(path.join(project, file), 'utf8').split('\n')[0])
    }
    // The three children ran at the same time: every start precedes every end.
    const startTimes = events.filter((event) => event.type === 'agent.start' && event.depth === 1).map((event) => Date.parse(event.ts))
    const endTimes = children.map((event) => Date.parse(event.ts))
    expect(Math.max(...startTimes)).toBeLessThan(Math.min(...endTimes))

    const jobEnd = events.find((event) => event.type === 'job.end')!
    expect(jobEnd.data.status).toBe('completed')
    const summed = ends.reduce((total, event) => addUsage(total, event.data.usage as Usage), emptyUsage())
    expect(summed).toEqual(jobEnd.data.usage)
    expect(summed.input_tokens).toBeGreaterThan(0)
    const llmCalls = events.filter((event) => event.type === 'llm.call')
    expect(llmCalls.every((event) => event.data.provider === provider && typeof event.data.cost_usd === 'number')).toBe(true)
    // The response's id and answering model, as the server sent them (OTLP gen_ai.response.*).
    expect(
      llmCalls.every(
        (event) => /^(chatcmpl|msg)_?-?fake\d+$/.test(String(event.data.response_id)) && typeof event.data.response_model === 'string',
      ),
    ).toBe(true)
  })

  it('--no-key sends its --base-url no key, though one is in the environment', async () => {
    const scripts = [{ match: 'NO-KEY-TASK', turns: [{ tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done' } }] }] }]
    server =
      provider === 'openai'
        ? ((await startFakeOpenAI({ route: openaiConversations(scripts) })) as FakeServer<unknown>)
        : ((await startFakeAnthropic({ route: anthropicConversations(scripts) })) as FakeServer<unknown>)
    const { project, dir } = fixtureProject()
    const baseUrl = provider === 'openai' ? `${server.url}/v1` : server.url
    const args = [
      'run',
      project,
      '--task',
      'NO-KEY-TASK',
      '--provider',
      provider,
      '--base-url',
      baseUrl,
      '--db',
      path.join(dir, 'arbor.db'),
    ]
    const { stdout } = await run(process.execPath, ['--import', 'tsx', cli, ...args, '--no-key'], {
      env: { ...process.env, OPENAI_API_KEY: 'sk-test-environment-key-5150', ANTHROPIC_API_KEY: 'sk-ant-test-environment-key-5150' },
      timeout: 60_000,
    })
    expect(stdout).toContain('result:\ndone')
    expect(server.requests.length).toBeGreaterThan(0)
    const sent = JSON.stringify(server.requests.map((request) => request.headers))
    expect(sent).not.toContain('environment-key-5150')
    expect(sent).toContain('arbor-local-no-key')
  })
})
