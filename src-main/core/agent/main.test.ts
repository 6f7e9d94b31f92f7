import { fork, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { packetMessages, toSupervisorSchema, type AgentInit, type ToAgent, type ToSupervisor } from '../protocol/messages'
import { createScriptedProvider } from '../providers/scripted'
import { agentSnapshotFile } from '../../cli/agent-entry'
import { makeInit, noWait, scriptOf, serveModelCalls } from './testing'

const source = { entry: fileURLToPath(new URL('./main.ts', import.meta.url)), execArgv: ['--import', 'tsx'] }
const outDir = fileURLToPath(new URL('../../../out/main/', import.meta.url))
/** The build's ways to start an agent (electron.vite.config.ts), where it has them. */
const snapshot = join(outDir, agentSnapshotFile())
const built = {
  bundle: { entry: join(outDir, 'agent.js'), execArgv: [] },
  snapshot: { entry: join(outDir, 'agent.cjs'), execArgv: ['--snapshot-blob', snapshot] },
  'code-cache loader': { entry: join(outDir, 'agent-cached.cjs'), execArgv: [] },
}
const isBuilt = (start: { entry: string; execArgv: string[] }): boolean =>
  existsSync(start.entry) && (!start.execArgv.includes(snapshot) || existsSync(snapshot))

let project: string
let child: ChildProcess | undefined
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'arbor-main-'))
  await writeFile(join(project, 'hello.txt'), 'hello from disk\n')
})
afterEach(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL')
  await rm(project, { recursive: true, force: true })
})

/**
 * Forks the agent entry as the supervisor does, recording every message it sends and answering
 * its model calls from the init's script (the supervisor makes model calls, not the agent).
 */
function startAgent(
  init: AgentInit | null,
  onMessage: (message: ToSupervisor, send: (message: ToAgent | Record<string, unknown>) => void) => void,
  { entry, execArgv }: { entry: string; execArgv: string[] } = source,
  env: NodeJS.ProcessEnv = process.env,
) {
  const messages: ToSupervisor[] = []
  const process = fork(entry, [], { execArgv, env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
  child = process
  const send = (message: ToAgent | Record<string, unknown>) => process.send(message)
  const model = init ? createScriptedProvider({ model: init.provider.model, script: scriptOf(init), sleep: noWait }) : null
  const answerModelCalls = model ? serveModelCalls(model, send) : () => undefined
  process.on('message', (packet) => {
    for (const raw of packetMessages(packet)) {
      const message = toSupervisorSchema.parse(raw)
      messages.push(message)
      answerModelCalls(message)
      onMessage(message, send)
    }
  })
  const exited = new Promise<number | null>((resolve) => process.on('exit', (code) => resolve(code)))
  return { messages, exited }
}

describe('the agent process', () => {
  it('says ready, runs a script that reads a real file, sends done and exits 0', async () => {
    const init = makeInit(project, [
      { tool_calls: [{ name: 'read_file', arguments: { path: 'hello.txt' } }] },
      { delay_ms: 5, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'It says hello.' } }] },
    ])
    const { messages, exited } = startAgent(init, (message, send) => {
      if (message.type !== 'ready') return
      send({ type: 'bogus' })
      send({ type: 'start', init })
    })
    expect(await exited).toBe(0)

    expect(messages[0]).toEqual({ type: 'ready' })
    const events = messages.flatMap((message) => (message.type === 'event' ? [message] : []))
    expect(events[0]).toMatchObject({
      event_type: 'error',
      data: { message: expect.stringMatching(/^invalid message from the supervisor/) },
    })
    expect(events.map((event) => event.event_type)).toEqual([
      'error',
      'message',
      'message',
      'message',
      'tool.call',
      'tool.result',
      'message',
      'message',
      'tool.call',
      'tool.result',
      'message',
    ])
    expect(events.every((event) => !Number.isNaN(Date.parse(event.ts)))).toBe(true)
    expect(events[1]!.data).toEqual({ role: 'system', content: init.profile.system_prompt })
    expect(events[2]!.data).toEqual({ role: 'user', content: 'Do the task.' })
    expect(events[5]!.data).toMatchObject({
      call_id: 'call_1_0',
      name: 'read_file',
      ok: true,
      output: '1\thello from disk',
      truncated: false,
    })

    // The agent asked the supervisor for each model call; it records none itself.
    expect(messages.filter((message) => message.type === 'model_call')).toHaveLength(2)
    expect(messages.some((message) => message.type === 'event' && message.event_type === 'llm.call')).toBe(false)
    // Its done says how it ended and counts nothing: steps, usage and tool calls are the supervisor's.
    expect(messages.at(-1)).toEqual({
      type: 'done',
      outcome: { status: 'completed', terminal_reason: 'completed', result: 'It says hello.', summary: 'It says hello.' },
    })
  })

  it('waits for the spawn_result of a task call', async () => {
    const init = makeInit(project, [
      { tool_calls: [{ name: 'task', arguments: { description: 'look', prompt: 'Look around.', subagent_type: 'explore' } }] },
      { text: 'The child could not run.' },
    ])
    const { messages, exited } = startAgent(init, (message, send) => {
      if (message.type === 'ready') send({ type: 'start', init })
      if (message.type === 'spawn')
        send({ type: 'spawn_result', call_id: message.call_id, result: { ok: false, error: 'spawning is paused' } })
    })
    expect(await exited).toBe(0)
    expect(messages.find((message) => message.type === 'spawn')).toMatchObject({ call_id: 'call_1_0', request: { prompt: 'Look around.' } })
    const result = messages.find((message) => message.type === 'event' && message.event_type === 'tool.result')
    expect(result).toMatchObject({ data: { ok: false, output: 'Error: the subagent did not run: spawning is paused' } })
    expect(messages.at(-1)).toMatchObject({ type: 'done', outcome: { status: 'completed', result: 'The child could not run.' } })
  })

  it('on SIGTERM stops the loop and reports killed with the last partial output', async () => {
    const init = makeInit(project, [
      {
        text: 'Delegating the search.',
        tool_calls: [{ name: 'task', arguments: { description: 'look', prompt: 'Look.', subagent_type: 'explore' } }],
      },
    ])
    const { messages, exited } = startAgent(init, (message, send) => {
      if (message.type === 'ready') send({ type: 'start', init })
      if (message.type === 'spawn') child?.kill('SIGTERM')
    })
    expect(await exited).toBe(0)
    expect(messages.at(-1)).toMatchObject({
      type: 'done',
      outcome: { status: 'failed', terminal_reason: 'killed', result: 'Delegating the search.' },
    })
  })

  it('exits when the supervisor disconnects', async () => {
    const { exited } = startAgent(null, (message) => {
      if (message.type === 'ready') child?.disconnect()
    })
    expect(await exited).toBe(0)
  })

  // search and bash load their work on their first call (chunks of agent.js; inside the snapshot).
  for (const [name, start] of Object.entries({ source, ...built })) {
    it.skipIf(!isBuilt(start))(
      `from ${name === 'source' ? 'source' : `the build's ${name}`}, runs the tools whose code loads on first use${isBuilt(start) ? '' : ' — skipped: run npm run build'}`,
      async () => {
        const init = makeInit(project, [
          {
            tool_calls: [
              { name: 'search', arguments: { pattern: 'hello\\s+from', glob: '*.txt' } },
              { name: 'bash', arguments: { command: 'cat hello.txt; echo "$ARBOR_PROBE"' } },
            ],
          },
          { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done' } }] },
        ])
        init.sandbox = { mode: 'off', network: false, protected_paths: [] }
        // The environment is the one the process starts with, not the one a snapshot was made in.
        const env = { ...process.env, ARBOR_PROBE: `probe ${name}` }
        const { messages, exited } = startAgent(
          init,
          (message, send) => message.type === 'ready' && send({ type: 'start', init }),
          start,
          env,
        )
        expect(await exited).toBe(0)
        const results = messages.flatMap((message) =>
          message.type === 'event' && message.event_type === 'tool.result' ? [message.data] : [],
        )
        // A message's calls run concurrently: their results come in the order they finish.
        const result = (tool: string) => results.find((data) => data.name === tool)
        expect(result('search')).toMatchObject({ ok: true, output: 'hello.txt:1:hello from disk' })
        expect(result('bash')).toMatchObject({ ok: true, output: `exit code: 0\nhello from disk\nprobe ${name}` })
        expect(messages.at(-1)).toMatchObject({ type: 'done', outcome: { status: 'completed', result: 'done' } })
      },
    )
  }
})

describe("the agent from its code cache (the build's agent-cached.cjs, what Electron starts)", () => {
  const cached = built['code-cache loader']

  /** One agent run on `cacheDir`: a bash call that prints the cache variable as its commands see it, then done. */
  async function runCached(cacheDir: string): Promise<void> {
    const init = makeInit(project, [
      { tool_calls: [{ name: 'bash', arguments: { command: 'echo "cache dir: ${ARBOR_AGENT_CODE_CACHE_DIR-unset}"' } }] },
      { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done' } }] },
    ])
    init.sandbox = { mode: 'off', network: false, protected_paths: [] }
    const env = { ...process.env, ARBOR_AGENT_CODE_CACHE_DIR: cacheDir }
    const { messages, exited } = startAgent(init, (message, send) => message.type === 'ready' && send({ type: 'start', init }), cached, env)
    expect(await exited).toBe(0)
    const bash = messages.find((message) => message.type === 'event' && message.event_type === 'tool.result')
    expect(bash).toMatchObject({ data: { ok: true, output: 'exit code: 0\ncache dir: unset' } })
    expect(messages.at(-1)).toMatchObject({ type: 'done', outcome: { status: 'completed', result: 'done' } })
  }

  it.skipIf(!isBuilt(cached))(
    `writes its cache on a first start, starts from it next, replaces a damaged one, and keeps its folder from commands${isBuilt(cached) ? '' : ' — skipped: run npm run build'}`,
    async () => {
      const cacheDir = join(project, '.code-cache')
      await runCached(cacheDir)
      const files = readdirSync(cacheDir)
      expect(files).toEqual([expect.stringMatching(/^agent-[0-9a-f]{32}\.cache$/)])
      const file = join(cacheDir, files[0]!)
      const written = statSync(file)
      expect(written.size).toBeGreaterThan(10_000)

      // Accepted by V8, so not written again: a new cache would be a new file renamed over it.
      await runCached(cacheDir)
      expect(statSync(file).ino).toBe(written.ino)

      writeFileSync(file, 'not a code cache')
      const damaged = statSync(file).ino
      await runCached(cacheDir)
      const replaced = statSync(file)
      expect(replaced.ino).not.toBe(damaged)
      expect(replaced.size).toBeGreaterThan(10_000)
      // No temporary file is left beside it.
      expect(readdirSync(cacheDir)).toEqual(files)
    },
  )
})
