import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../core/store/database'
import { getAgents, listJobs } from '../core/store/queries'
import { createTestRig, type TestRig } from '../core/supervisor/testing'
import type { ScriptTurn } from '../core/trace/model'
import { askForBudgets } from './budget-prompt'

/**
 * `arbor run --on-budget pause` on a terminal asks for a new cap when the job pauses at one: the
 * prompt's logic against a real engine (real agent processes, SQLite) with streams for the
 * terminal; and without a terminal the CLI's default is stop, the old behaviour.
 */

let rig: TestRig | undefined
afterEach(async () => {
  await rig?.engine.close()
  rig = undefined
})

const listing: ScriptTurn = { delay_ms: 20, tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] }
const lister = {
  root: [...Array.from({ length: 12 }, () => listing), { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'listed' } }] }],
  children: {},
}

/** A terminal: what is typed goes in line by line, what is printed is kept. */
function terminal() {
  const input = new PassThrough()
  const output = new PassThrough()
  const term = { input, output, printed: '' }
  output.on('data', (chunk: Buffer) => (term.printed += chunk.toString()))
  return term
}

const until = async (check: () => boolean): Promise<void> => {
  await expect.poll(check, { timeout: 20_000 }).toBe(true)
}

describe('askForBudgets', () => {
  it('asks for a new cap when the job pauses at one, asks again after a bad or refused answer, and raises it: the job completes', async () => {
    rig = createTestRig()
    const term = terminal()
    const running: { jobId?: string } = {}
    rig.engine.subscribe(askForBudgets(rig.engine.supervisor, () => running.jobId, term))
    running.jobId = rig.start(lister, { job_token_budget: 3000 })
    await until(() => term.printed.includes('New token budget for the job'))
    expect(term.printed).toMatch(/⏸ paused: the job's token budget \(3,000\) is spent \([\d,]+ tokens\): raise it to go on/)
    expect(term.printed).toContain('(now 3,000; empty or "stop": stop the job)')
    term.input.write('lots\n')
    await until(() => term.printed.includes('"lots" is not a whole number of tokens above 0'))
    term.input.write('3,000\n')
    await until(() => term.printed.includes('arbor: not raised: a token budget of 3,000 is not above the'))
    term.input.write('1_000_000\n')
    await rig.engine.waitForJob(running.jobId)
    const { job } = await rig.engine.handlers.getTree({ job_id: running.jobId })
    expect(job.status).toBe('completed')
    expect(job.settings.job_token_budget).toBe(1_000_000)
  }, 60_000)

  it('stops the job at its cap on an empty answer, as --on-budget stop would', async () => {
    rig = createTestRig()
    const term = terminal()
    const running: { jobId?: string } = {}
    rig.engine.subscribe(askForBudgets(rig.engine.supervisor, () => running.jobId, term))
    running.jobId = rig.start(lister, { job_token_budget: 3000 })
    await until(() => term.printed.includes('New token budget for the job'))
    term.input.write('\n')
    await rig.engine.waitForJob(running.jobId)
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: running.jobId })
    expect(job.status).toBe('failed')
    expect(agents.map((agent) => [agent.status, agent.terminal_reason])).toEqual([['failed', 'token_budget']])
  }, 60_000)
})

describe('arbor run without a terminal', () => {
  const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
  const exec = promisify(execFile)

  function fixture() {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-on-budget-'))
    const project = path.join(dir, 'shop')
    mkdirSync(project)
    writeFileSync(path.join(project, 'README.md'), '# Shop\n')
    return { project, db: path.join(dir, 'arbor.db') }
  }

  const run = (args: string[]) =>
    exec(process.execPath, ['--import', 'tsx', cli, 'run', ...args], { timeout: 45_000 }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    )

  /** The job's recorded on_budget and how its agents ended. */
  function outcome(db: string) {
    const opened = openDatabase(db)
    try {
      const [job] = listJobs(opened)
      return { on_budget: job!.settings.on_budget, ends: getAgents(opened, job!.id).map((agent) => agent.terminal_reason) }
    } finally {
      opened.close()
    }
  }

  it.each([
    ['by default', []],
    ['even when --on-budget pause asks for it (nobody could raise the cap), saying so', ['--on-budget', 'pause']],
  ])(
    'stops at the budget %s: every agent ends with token_budget, exit 1',
    async (_name, flags) => {
      const { project, db } = fixture()
      const result = await run([project, '--task', 'look around', '--job-token-budget', '1000', '--db', db, ...flags])
      expect(result.code).toBe(1)
      const { on_budget, ends } = outcome(db)
      expect(on_budget).toBe('stop')
      expect(ends.length).toBeGreaterThan(0)
      expect(ends.every((reason) => reason === 'token_budget' || reason === 'cancelled')).toBe(true)
      expect(ends).toContain('token_budget')
      if (flags.length > 0) expect(result.stderr).toContain('--on-budget pause needs a terminal to ask for a new budget on')
    },
    60_000,
  )
  // `script` gives the CLI a terminal and types the new budget into it: the job pauses, asks, and completes.
  it.runIf(existsSync('/usr/bin/script'))(
    'on a terminal pauses at the budget, asks for a new one, and completes with it',
    async () => {
      const { project, db } = fixture()
      const command = [process.execPath, '--import', 'tsx', cli, 'run', project, '--task', "'look around'"]
        .concat(['--job-token-budget', '1000', '--on-budget', 'pause', '--db', db])
        .join(' ')
      const result = await new Promise<{ code: number; stdout: string }>((resolve) => {
        const child = execFile('/usr/bin/script', ['-qec', command, '/dev/null'], { timeout: 45_000 }, (error, stdout) =>
          resolve({ code: error ? Number(error.code) : 0, stdout }),
        )
        child.stdin?.end('1000000\n')
      })
      expect(result.stdout).toMatch(/⏸ paused: the job's token budget \(1,000\) is spent/)
      expect(result.stdout).toContain('New token budget for the job (now 1,000; empty or "stop": stop the job)')
      expect(result.stdout).toContain("$ the job's budget set to 1,000,000 tokens")
      expect(result.code).toBe(0)
      const { on_budget, ends } = outcome(db)
      expect(on_budget).toBe('pause')
      expect(ends.every((reason) => reason === 'completed')).toBe(true)
    },
    60_000,
  )
})
