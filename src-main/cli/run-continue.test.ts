import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import type { FakeServer, RecordedRequest } from '../core/providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../core/providers/testing/fake-openai'

/**
 * `arbor run --continue JOB|last --task TEXT`: the real CLI, twice, on one database: a job runs
 * and ends, then a second process follows it up; the root goes on from its whole history. Each
 * test runs the CLI three or four times: its time is theirs (each starts Node and tsx).
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const exec = promisify(execFile)
const complete = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })

let server: FakeServer<unknown> | null = null
afterEach(async () => {
  await server?.close()
  server = null
})

function fixture(): { project: string; dbFile: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-continue-'))
  const project = path.join(dir, 'shop')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Shop\n')
  return { project, dbFile: path.join(dir, 'arbor.db') }
}

const arbor = (args: string[]) =>
  exec(process.execPath, ['--import', 'tsx', cli, ...args], {
    env: { ...process.env, OPENAI_API_KEY: 'sk-test-continue' },
    timeout: 60_000,
  })

const messagesOf = (request: RecordedRequest) => (request.body as { messages: Array<{ role: string; content: string }> }).messages

describe('arbor run --continue', () => {
  it('follows up the last job in a new process: the same job, its history plus the new text, the new answer printed', async () => {
    server = (await startFakeOpenAI({
      route: openaiConversations([
        { match: 'ROOT-TASK', turns: [complete('FIRST: 20%'), complete('SECOND: in src/tax.ts'), complete('THIRD: you are welcome')] },
      ]),
    })) as FakeServer<unknown>
    const { project, dbFile } = fixture()
    const first = await arbor([
      'run',
      project,
      '--task',
      'ROOT-TASK: what is the tax rate?',
      '--provider',
      'openai',
      '--model',
      'gpt-4o',
      '--base-url',
      `${server.url}/v1`,
      '--db',
      dbFile,
      '--json',
    ])
    const jobId = (JSON.parse(first.stdout) as { job_id: string }).job_id
    expect(server.requests).toHaveLength(1)

    const second = await arbor(['run', project, '--continue', 'last', '--task', 'And where is it applied?', '--db', dbFile, '--json'])
    const outcome = JSON.parse(second.stdout) as { job_id: string; status: string; result: unknown; agents: unknown[] }
    expect(outcome).toMatchObject({ job_id: jobId, status: 'completed', result: 'SECOND: in src/tax.ts' })
    expect(outcome.agents).toHaveLength(1)
    expect(server.requests).toHaveLength(2)
    const earlier = messagesOf(server.requests[0]!)
    const next = messagesOf(server.requests[1]!)
    expect(JSON.stringify(next.slice(0, earlier.length))).toBe(JSON.stringify(earlier))
    expect(next.at(-1)).toEqual({ role: 'user', content: 'And where is it applied?' })

    // By a part of its id, in the human-readable form.
    const third = await arbor(['run', project, '--continue', jobId.slice(-8), '--task', 'Thanks.', '--db', dbFile])
    expect(third.stdout).toContain(`continuing job ${jobId}`)
    expect(third.stdout).toContain('↻ root followed up: Thanks.')
    expect(third.stdout).toMatch(/■ root completed \(completed, 3 steps/)
    expect(third.stdout).toContain('result:\nTHIRD: you are welcome')
    expect(server.requests).toHaveLength(3)
  }, 180_000)

  it('refuses what it cannot follow up, with exit 2 and a reason: no task, new-job flags, an unknown job', async () => {
    const { project, dbFile } = fixture()
    const failure = (args: string[]) =>
      arbor(args).then(
        () => {
          throw new Error('expected a failure')
        },
        (error: { code: number; stderr: string }) => error,
      )
    expect(await failure(['run', project, '--continue', 'last', '--db', dbFile])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--continue needs --task TEXT'),
    })
    expect(await failure(['run', project, '--continue', 'last', '--task', 'x', '--model', 'gpt-4o', '--db', dbFile])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining("--continue goes on with the job's own settings: leave out --model"),
    })
    expect(await failure(['run', project, '--continue', 'last', '--task', 'x', '--db', dbFile])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('this project has no job to continue'),
    })
    expect(await failure(['run', project, '--continue', 'job_nothing', '--task', 'x', '--db', dbFile])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('no job id starts or ends with job_nothing'),
    })
  }, 180_000)
})
