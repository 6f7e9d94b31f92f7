import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import WebSocket from 'ws'
import { defaultNewJob, type NewJob } from '../api/job-form'
import type { FakeServer } from '../providers/testing/fake-http'
import { openaiConversations, openaiView, startFakeOpenAI, type FakeOpenAIResponse } from '../providers/testing/fake-openai'
import { descendantsOf, killLeftovers, newMarker, processesWith, waitUntil, type ProcessInfo } from './processes'

/**
 * A real CLI process (`arbor run` or `arbor serve` from the source, as the CLI tests run it) with a
 * job caught mid-step, for the tests that stop the CLI every way a user can. The model is a local
 * OpenAI-compatible server: the root delegates two workers that each run a `bash` sleep carrying
 * the marker, and an explore child whose model call never gets an answer. Resolves once both
 * sleeps run and the explore child's call is waiting, with the CLI's whole process tree then.
 */
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))
const cliSource = path.join(repoRoot, 'src-main/cli/main.ts')
const rootMarker = 'STUCK-ROOT'
const sleepers = ['SLEEPER-A', 'SLEEPER-B']
const thinker = 'THINKER'

export interface StuckCli {
  command: 'run' | 'serve'
  child: ChildProcess
  pid: number
  project: string
  dbFile: string
  marker: string
  /** The CLI's descendants (agents, sandboxes, shells, sleeps) once all ran; after the CLI dies they are reparented. */
  tree: ProcessInfo[]
  /** Resolves when the CLI process has exited (and was reaped). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  output(): string
  /** Kills whatever a failed test left, closes the model server, removes the folder. */
  cleanup(): Promise<void>
}

/** `node --import tsx src-main/cli/main.ts ARGS`, waited for; stdout and stderr returned. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cliSource, ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, stdout, stderr }))
  })
}

function stuckModel(sleep: string): Promise<FakeServer<FakeOpenAIResponse>> {
  const delegate: FakeOpenAIResponse = {
    text: 'Two workers wait on a command, one explorer thinks.',
    tool_calls: [
      ...sleepers.map((description) => ({
        name: 'task',
        arguments: { description, subagent_type: 'worker', prompt: `${description}: wait for the command.` },
      })),
      { name: 'task', arguments: { description: thinker, subagent_type: 'explore', prompt: `${thinker}: think about the project.` } },
    ],
  }
  const done = (result: string): FakeOpenAIResponse => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
  return startFakeOpenAI({
    route: openaiConversations([
      ...sleepers.map((match) => ({
        match,
        turns: [{ tool_calls: [{ name: 'bash', arguments: { command: sleep, timeout_ms: 600_000 } }] }, done('slept')],
      })),
      { match: thinker, turns: [{ kind: 'no_answer' } as FakeOpenAIResponse] },
      { match: rootMarker, turns: [delegate, done('never reached')] },
    ]),
  })
}

export async function startStuckCli(command: 'run' | 'serve'): Promise<StuckCli> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-stuck-'))
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Stuck fixture\n')
  const dbFile = path.join(dir, 'data', 'arbor.db')
  const { marker, sleep } = newMarker()
  const model = await stuckModel(sleep)
  const baseUrl = `${model.url}/v1`
  const task = `${rootMarker}: delegate and wait.`
  const args =
    command === 'run'
      ? ['run', project, '--task', task, '--provider', 'openai', '--model', 'gpt-4o-mini', '--base-url', baseUrl, '--db', dbFile]
      : ['serve', project, '--db', dbFile]
  // Its own process group, as a terminal starts a foreground job: a signal to the group reaches the CLI alone (agents run in groups of their own).
  const child = spawn(process.execPath, ['--import', 'tsx', cliSource, ...args], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, OPENAI_API_KEY: 'sk-test-stuck-cli-0000', ARBOR_DATA_DIR: path.dirname(dbFile) },
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  let gone = false
  void exited.then(() => (gone = true))
  const pid = child.pid!
  const cleanup = async (): Promise<void> => {
    killLeftovers(marker, [pid, ...stuck.tree.map((info) => info.pid)])
    if (!gone) await exited
    await model.close()
    rmSync(dir, { recursive: true, force: true })
  }
  const stuck: StuckCli = { command, child, pid, project, dbFile, marker, tree: [], exited, output: () => output, cleanup }
  try {
    if (command === 'serve')
      await startJobOverSocket(
        () => output,
        () => gone,
        { ...defaultNewJob(), task, provider: 'openai', model: 'gpt-4o-mini', base_url: baseUrl },
      )
    const waiting = () => model.requests.some((request) => request.finished_at === null && openaiView(request).first_user.includes(thinker))
    await waitUntil(
      () => gone || (processesWith(marker).filter((info) => info.args.startsWith('sleep ')).length === sleepers.length && waiting()),
      {
        timeoutMs: 60_000,
        what: 'both sleeps run and the explorer waits for its model',
        describe: () => output,
      },
    )
    if (gone) throw new Error(`arbor ${command} exited early:\n${output}`)
    stuck.tree = descendantsOf(pid)
    return stuck
  } catch (error) {
    child.kill('SIGKILL')
    await cleanup()
    throw error
  }
}

/** `arbor serve` prints its URL; the job starts as the UI starts one, over the WebSocket API. */
async function startJobOverSocket(output: () => string, gone: () => boolean, job: NewJob): Promise<void> {
  await waitUntil(() => gone() || /Open: \S+/.test(output()), { timeoutMs: 30_000, what: 'arbor serve prints its URL', describe: output })
  const printed = /Open: (\S+)/.exec(output())
  if (!printed) throw new Error(`arbor serve exited before printing its URL:\n${output()}`)
  const url = new URL(printed[1]!)
  const socket = new WebSocket(`ws://${url.host}/ws?token=${url.searchParams.get('token')}`)
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject))
  const replies = new Map<number, (result: { ok: boolean; error?: { message: string } }) => void>()
  socket.on('message', (data) => {
    const frame = JSON.parse(String(data)) as { id?: number; result?: { ok: boolean; error?: { message: string } } }
    if (frame.id !== undefined && frame.result) replies.get(frame.id)?.(frame.result)
  })
  let nextId = 0
  const ask = async (method: string, input: unknown): Promise<void> => {
    const id = ++nextId
    const result = await new Promise<{ ok: boolean; error?: { message: string } }>((resolve) => {
      replies.set(id, resolve)
      socket.send(JSON.stringify({ id, method, input }))
    })
    if (!result.ok) throw new Error(`${method} failed: ${result.error?.message}`)
  }
  // The key (from the environment) goes only to the base URL saved for the provider, as a user saves it in Settings.
  await ask('setProviderConfig', { provider: 'openai', base_url: job.base_url, model: job.model, light_model: null })
  await ask('startJob', { kind: 'agent', job })
  socket.close()
}
