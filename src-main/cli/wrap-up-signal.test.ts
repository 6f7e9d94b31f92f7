import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import type { FakeServer } from '../core/providers/testing/fake-http'
import { openaiView, startFakeOpenAI, type FakeOpenAIResponse } from '../core/providers/testing/fake-openai'
import { descendantsOf, killLeftovers, newMarker, waitForNoneLeft, waitUntil } from '../core/testing/processes'

/**
 * `arbor run` on a terminal (a real pseudo-terminal from util-linux `script`, the CLI from the
 * source): the first Ctrl-C (the byte a terminal sends, so the kernel signals the foreground
 * group) wraps the whole job up and says that a second one kills; the second kills, as Ctrl-C did
 * before. SIGTERM stays immediate on a terminal too. Without a terminal every signal is
 * immediate, as signals.test.ts checks.
 */
const repoRoot = fileURLToPath(new URL('../..', import.meta.url))
const cliSource = path.join(repoRoot, 'src-main/cli/main.ts')
const hasScript = spawnSync('script', ['--version']).status === 0

interface TerminalCli {
  child: ChildProcess
  output(): string
  exited: Promise<number | null>
  /** The CLI's own process (script's child), for SIGTERM and for the leftover check. */
  cliPid(): number
  dbFile: string
  marker: string
  model: FakeServer<FakeOpenAIResponse>
  cleanup(): Promise<void>
}

let running: TerminalCli | undefined
afterEach(async () => {
  await running?.cleanup()
  running = undefined
})

const sleepers = ['SLEEPER-A', 'SLEEPER-B']
const wrapUpText = 'Wrap up now'
const told = (body: unknown): boolean => JSON.stringify(body).includes(wrapUpText)

/**
 * The root delegates two workers that run `sleep` (the marker's, or `seconds`), and each agent
 * finishes only once its request carries the wrap-up; until then it keeps working.
 */
async function startOnTerminal(sleep: (marker: string) => string): Promise<TerminalCli> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-wrapup-cli-'))
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Fixture\n')
  const dbFile = path.join(dir, 'data', 'arbor.db')
  const { marker } = newMarker()
  const command = sleep(marker)
  const model = await startFakeOpenAI({
    route: (request) => {
      const view = openaiView(request)
      const sleeper = sleepers.find((name) => view.first_user.includes(name))
      if (sleeper) {
        if (told(request.body)) return { tool_calls: [{ name: 'attempt_completion', arguments: { result: `${sleeper} reports` } }] }
        return { tool_calls: [{ name: 'bash', arguments: { command, timeout_ms: 600_000 } }] }
      }
      if (view.turn === 0) {
        return {
          tool_calls: sleepers.map((description) => ({
            name: 'task',
            arguments: { description, subagent_type: 'worker', prompt: `${description}: wait for the command.` },
          })),
        }
      }
      return told(request.body) ? { text: 'ROOT wrapped up.' } : { tool_calls: [{ name: 'bash', arguments: { command } }] }
    },
  })
  const cli = [process.execPath, '--import', 'tsx', cliSource, 'run', project, '--task', 'ROOT: delegate and wait.']
  cli.push('--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', `${model.url}/v1`, '--db', dbFile)
  const quoted = cli.map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ')
  // script gives the CLI a terminal for stdin and stdout; what is written to its stdin is typed on it.
  const child = spawn('script', ['-qfec', `exec ${quoted}`, '/dev/null'], {
    cwd: repoRoot,
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, OPENAI_API_KEY: 'sk-test-wrapup-cli-0000', ARBOR_DATA_DIR: path.dirname(dbFile), TERM: 'dumb' },
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let gone = false
  void exited.then(() => (gone = true))
  const cliPid = (): number => descendantsOf(child.pid!).find((info) => info.args.includes(cliSource))?.pid ?? -1
  const cleanup = async (): Promise<void> => {
    killLeftovers(marker, [child.pid!])
    if (!gone) {
      child.kill('SIGKILL')
      await exited
    }
    await model.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const started = { child, output: () => output, exited, cliPid, dbFile, marker, model, cleanup }
  // Both workers run their command (their first call answered) and the root waits in its task call.
  await waitUntil(
    () =>
      gone ||
      sleepers.every((name) =>
        model.requests.some((request) => openaiView(request).first_user.includes(name) && request.finished_at !== null),
      ),
    { timeoutMs: 60_000, what: 'both workers are running their command', describe: () => output },
  )
  if (gone) throw new Error(`arbor run exited early:\n${output}`)
  return started
}

function storedStatuses(dbFile: string): { job: string; agents: string[] } {
  const db = new Database(dbFile, { readonly: true, fileMustExist: true })
  try {
    const job = db.prepare('SELECT status FROM jobs').get() as { status: string }
    const agents = (db.prepare('SELECT status FROM agents ORDER BY created_seq').all() as { status: string }[]).map((row) => row.status)
    return { job: job.status, agents }
  } finally {
    db.close()
  }
}

const ctrlC = '\u0003'

describe.skipIf(!hasScript)('arbor run on a terminal', () => {
  it('wraps the whole job up on the first Ctrl-C, saying a second one kills; every agent reports', { timeout: 120_000 }, async () => {
    running = await startOnTerminal(() => 'sleep 2')
    running.child.stdin!.write(ctrlC)
    await waitUntil(() => running!.output().includes('press Ctrl-C again to kill'), {
      what: 'the CLI says it wraps up',
      describe: running.output,
    })
    expect(await running.exited).toBe(0)
    const output = running.output()
    expect(output).toMatch(/arbor: wrapping up: each agent finishes and reports within 2 steps/)
    expect(output.match(/told to wrap up/g)).toHaveLength(3)
    expect(output).toContain('ROOT wrapped up.')
    expect(output).not.toContain('stopping agents')
    expect(storedStatuses(running.dbFile)).toEqual({ job: 'completed', agents: ['completed', 'completed', 'completed'] })
  })

  it('kills the job on the second Ctrl-C, as Ctrl-C did before', { timeout: 120_000 }, async () => {
    // The workers' commands outlast the test: the wrap-up waits for them, the second Ctrl-C does not.
    running = await startOnTerminal((marker) => `sleep ${marker}`)
    await waitUntil(
      () => descendantsOf(running!.child.pid!).filter((info) => info.args.startsWith(`sleep ${running!.marker}`)).length === 2,
      {
        what: 'both sleeps run',
      },
    )
    const tree = descendantsOf(running.child.pid!).map((info) => info.pid)
    running.child.stdin!.write(ctrlC)
    await waitUntil(() => running!.output().includes('press Ctrl-C again to kill'), { what: 'the CLI wraps up', describe: running.output })
    running.child.stdin!.write(ctrlC)
    expect(await running.exited).toBe(130)
    expect(running.output()).toContain('arbor: stopping agents…')
    expect(running.output()).toMatch(/^job job_\S+ killed\r?$/m)
    await waitForNoneLeft(running.marker, tree, 5_000)
    const statuses = storedStatuses(running.dbFile)
    expect(statuses.job).toBe('cancelled')
    expect(statuses.agents.filter((status) => status === 'running')).toEqual([])
  })

  it('stops at once on SIGTERM, without wrapping up', { timeout: 120_000 }, async () => {
    running = await startOnTerminal((marker) => `sleep ${marker}`)
    const pid = running.cliPid()
    expect(pid).toBeGreaterThan(1)
    process.kill(pid, 'SIGTERM')
    expect(await running.exited).toBe(143)
    expect(running.output()).toContain('arbor: stopping agents…')
    expect(running.output()).not.toContain('wrapping up')
    expect(storedStatuses(running.dbFile).job).toBe('cancelled')
  })
})
