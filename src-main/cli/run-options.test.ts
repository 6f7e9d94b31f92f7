import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { FakeServer } from '../core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../core/providers/testing/fake-openai'
import { openDatabase } from '../core/store/database'
import { listJobs } from '../core/store/queries'

/**
 * `arbor run`'s job options are checked as the API checks a new job (the new-job schema and
 * checkNewJob), and `--no-sandbox` is confirmed before anything starts. The real CLI process;
 * jobs that do start run real agent processes against the fake OpenAI server.
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const exec = promisify(execFile)
const hasScript = existsSync('/usr/bin/script')

let server: FakeServer<unknown> | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

function fixture(): { project: string; dir: string; db: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-options-'))
  const project = path.join(dir, 'shop')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Shop\n')
  return { project, dir, db: path.join(dir, 'arbor.db') }
}

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

const arbor = (args: string[], env: NodeJS.ProcessEnv = {}): Promise<Outcome> =>
  exec(process.execPath, ['--import', 'tsx', cli, ...args], {
    env: { ...process.env, OPENAI_API_KEY: 'sk-test-options', ...env },
    timeout: 45_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: Outcome) => error,
  )

const jobsIn = (db: string): number => {
  if (!existsSync(db)) return 0
  const opened = openDatabase(db)
  try {
    return listJobs(opened).length
  } finally {
    opened.close()
  }
}

async function answeringServer(): Promise<string> {
  server = (await startFakeOpenAI({
    route: openaiConversations([
      { match: 'ROOT-TASK', turns: [{ tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done' } }] }] },
    ]),
  })) as FakeServer<unknown>
  return `${server.url}/v1`
}

const headerOf = (file: string) =>
  JSON.parse(readFileSync(file, 'utf8').split('\n')[0]!) as { type: string; job: { settings: Record<string, unknown> } }

describe('arbor run checks its job options with the API’s limits', () => {
  it('names each bad flag with the form’s message, exits 2 and starts nothing', async () => {
    const { project, db } = fixture()
    const failed = await arbor([
      'run',
      project,
      '--task',
      '   ',
      '--db',
      db,
      '--max-depth',
      '9',
      '--max-children',
      '65',
      '--job-token-budget',
      '1000000001',
      '--job-cost-budget',
      '100001',
      '--agent-timeout',
      '86401',
      '--max-spawns-per-turn=-1',
      '--max-spawns-per-minute',
      '2.5',
      '--max-agents=-4',
      '--base-url',
      'ftp://example.com',
      '--rate-limit-wait=-1',
    ])
    expect(failed.code).toBe(2)
    expect(failed.stdout).toBe('')
    for (const line of [
      '--task: describe the task',
      '--max-depth: at most 8',
      '--max-children: at most 64',
      '--job-token-budget: at most 1,000,000,000',
      '--job-cost-budget: at most 100,000',
      '--agent-timeout: at most 86,400',
      '--max-spawns-per-turn: at least 0 (0: no limit)',
      '--max-spawns-per-minute: must be a whole number',
      '--max-agents: at least 0 (0: no limit)',
      '--base-url: must be an http:// or https:// URL',
      '--rate-limit-wait: at least 0 (0: no waiting)',
    ]) {
      expect(failed.stderr).toContain(line)
    }
    expect(jobsIn(db)).toBe(0)
  })

  it('refuses a cost budget on a model without a price, naming the model and where to add one; nothing reaches the model', async () => {
    const { project, db } = fixture()
    const baseUrl = await answeringServer()
    const failed = await arbor([
      'run',
      project,
      '--task',
      'ROOT-TASK: total the cart',
      '--provider',
      'openai_compatible',
      '--base-url',
      baseUrl,
      '--model',
      'my-local-model',
      '--job-cost-budget',
      '2',
      '--db',
      db,
    ])
    expect(failed.code).toBe(2)
    expect(failed.stderr).toContain('arbor: --job-cost-budget: "my-local-model" has no price, so a cost budget cannot be enforced')
    expect(failed.stderr).toContain(`run \`arbor serve --db ${db}\` and add one in Settings ▸ Prices`)
    expect(failed.stderr).not.toContain('Usage:')
    expect(server!.requests).toHaveLength(0)
    expect(jobsIn(db)).toBe(0)
  })

  it('records the sandbox, network, timeout and spawn guard options in the exported job header', async () => {
    const { project, dir, db } = fixture()
    const baseUrl = await answeringServer()
    const exportFile = path.join(dir, 'trace.jsonl')
    const done = await arbor([
      'run',
      project,
      '--task',
      'ROOT-TASK: total the cart',
      '--provider',
      'openai',
      '--base-url',
      baseUrl,
      '--model',
      'gpt-4o-mini',
      '--allow-network',
      '--no-sandbox',
      '--yes',
      '--agent-timeout',
      '120',
      '--max-spawns-per-turn',
      '4',
      '--max-spawns-per-minute',
      '0',
      '--max-agents',
      '30',
      '--rate-limit-wait',
      '2.5',
      '--max-model-calls',
      '3',
      '--db',
      db,
      '--export',
      exportFile,
    ])
    expect(done.code).toBe(0)
    expect(done.stderr).toContain('arbor: WARNING: --no-sandbox: commands run without the OS sandbox')
    const header = headerOf(exportFile)
    expect(header.type).toBe('trace.header')
    expect(header.job.settings).toMatchObject({
      provider: 'openai',
      allow_network: true,
      no_sandbox: true,
      agent_timeout_ms: 120_000,
      max_spawns_per_turn: 4,
      max_spawns_per_minute: 0,
      max_agents: 30,
      rate_limit_wait_minutes: 2.5,
    })
    const refused = await arbor(['run', project, '--task', 'x', '--db', db, '--max-model-calls', '0'])
    expect(refused).toMatchObject({ code: 2 })
    expect(refused.stderr).toContain('--max-model-calls must be an integer ≥ 1, got "0"')
  })
})

describe('arbor run --no-sandbox', () => {
  it('without a terminal and without --yes: the warning, then a refusal with exit 2', async () => {
    const { project, db } = fixture()
    const failed = await arbor(['run', project, '--task', 'ROOT-TASK: look around', '--no-sandbox', '--db', db])
    expect(failed.code).toBe(2)
    expect(failed.stderr).toContain(
      'arbor: WARNING: --no-sandbox: commands run without the OS sandbox; they can read, change and delete anything you can',
    )
    expect(failed.stderr).toContain('--no-sandbox needs --yes when there is no terminal to ask on')
    expect(jobsIn(db)).toBe(0)
  })

  // `script` gives the CLI a terminal, and types the answer into it.
  it.runIf(hasScript).each([
    ['n', 2, 0],
    ['y', 0, 1],
  ])('on a terminal asks first; answering %s exits %d with %d job(s)', async (answer, code, jobs) => {
    const { project, db } = fixture()
    const baseUrl = await answeringServer()
    const command = [
      process.execPath,
      '--import',
      'tsx',
      cli,
      'run',
      project,
      '--task',
      "'ROOT-TASK: look around'",
      '--provider',
      'openai',
      '--base-url',
      baseUrl,
      '--model',
      'gpt-4o-mini',
      '--no-sandbox',
      '--db',
      db,
    ].join(' ')
    const outcome = await new Promise<Outcome>((resolve) => {
      const child = execFile(
        '/usr/bin/script',
        ['-qec', command, '/dev/null'],
        { env: { ...process.env, OPENAI_API_KEY: 'sk-test-options' }, timeout: 45_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code) : 0, stdout, stderr }),
      )
      child.stdin?.end(`${answer}\n`)
    })
    expect(outcome.stdout).toContain('Run this job without the sandbox? [y/N]')
    expect(outcome.code).toBe(code)
    if (answer === 'n') expect(outcome.stdout).toContain('running without the sandbox was not confirmed')
    expect(jobsIn(db)).toBe(jobs)
  })
})
