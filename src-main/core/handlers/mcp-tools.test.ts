import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { createDispatcher } from '../api/dispatcher'
import { defaultNewJob, type NewJob } from '../api/job-form'
import type { ConversationView } from '../providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../providers/testing/fake-openai'
import { startHttpMcpServer } from '../mcp/testing/http-server'
import { useCleanups } from '../testing/cleanups'
import type { TraceEvent } from '../trace/events'
import { handlerEngine } from './testing'

/**
 * MCP tools end to end: a real stdio MCP server (mcp/testing/stdio-server.mjs, run by node) and a
 * real streamable-HTTP one on 127.0.0.1, both written with the SDK; real agent processes; a local
 * server streaming the Chat Completions format. A child of a profile that lists the servers calls
 * their tools as `mcp__<server>__<tool>`.
 */

const { cleanups, tempDir } = useCleanups('arbor-mcp-')
const stdioServer = path.join(__dirname, '../mcp/testing/stdio-server.mjs')
const callTimeoutMs = 4_000

const profileFile = `---
name: mcp-worker
description: Calls the test MCP tools.
tools: [read_file, mcp__tools__echo, mcp__tools__crash, mcp__tools__hang, mcp__tools__garble, mcp__weather]
mcpServers: [tools, weather]
mcpTrusted: [mcp__tools__crash, mcp__tools__hang, mcp__tools__garble, mcp__weather]
---
Call the tools you are told to call.
`

/** The project; the stdio server appends its pids to `pidFile` (default: in the project, which a sandboxed server may write). */
function project(httpUrl: string, pidFile?: string): string {
  const dir = path.join(tempDir(), 'proj')
  mkdirSync(path.join(dir, '.arbor/agents'), { recursive: true })
  writeFileSync(path.join(dir, '.arbor/agents/mcp-worker.md'), profileFile)
  writeFileSync(
    path.join(dir, '.mcp.json'),
    JSON.stringify({
      mcpServers: {
        tools: { command: process.execPath, args: [stdioServer], env: { MCP_PID_FILE: pidFile ?? path.join(dir, 'pids.txt') } },
        weather: { type: 'http', url: httpUrl, headers: { Authorization: 'Bearer ${MCP_TEST_TOKEN:-tok-123}' } },
      },
    }),
  )
  return dir
}

const call = (name: string, args: Record<string, unknown> = {}) => ({ tool_calls: [{ name, arguments: args }] })
const finish = (result: string) => call('attempt_completion', { result })

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

async function eventually(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const until = Date.now() + ms
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('MCP tools', () => {
  it('a child calls stdio and HTTP MCP tools: approved in ask mode; crash, hang and bad JSON are tool errors; no server outlives the job', async () => {
    const http = await startHttpMcpServer('tok-123')
    cleanups.push(() => http.close())
    const pidFile = path.join(tempDir(), 'pids.txt')
    const dir = project(http.url, pidFile)
    const results: string[] = []
    let childTools: string[] = []
    const record = (view: ConversationView) => results.push(view.tool_results.map((result) => result.content).join('\n'))
    const model = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'MCP-CHILD',
          turns: [
            (view) => {
              childTools = view.tools
              return call('mcp__tools__echo', { text: 'hello' })
            },
            (view) => (record(view), call('mcp__tools__secret')),
            (view) => (record(view), call('mcp__tools__crash')),
            (view) => (record(view), call('mcp__tools__hang')),
            (view) => (record(view), call('mcp__tools__garble')),
            (view) => (record(view), call('mcp__weather__weather', { city: 'Oslo' })),
            (view) => (record(view), call('mcp__tools__echo', { text: 'again' })),
            (view) => (record(view), finish('done with the tools')),
          ],
        },
        {
          match: 'ROOT-TASK',
          turns: [
            call('task', { description: 'MCP-CHILD', prompt: 'MCP-CHILD: call the tools.', subagent_type: 'mcp-worker' }),
            finish('ok'),
          ],
        },
      ]),
    })
    cleanups.push(() => model.close())
    const rig = handlerEngine({ dbFile: path.join(tempDir(), 'arbor.db'), project: dir, cleanups, mcpCallTimeoutMs: callTimeoutMs })
    const dispatch = createDispatcher(rig.engine.handlers)
    const job: NewJob = {
      ...defaultNewJob(),
      task: 'ROOT-TASK: use the MCP tools',
      provider: 'openai_compatible',
      base_url: `${model.url}/v1`,
      model: 'llama3.1',
      subagent_approvals: 'ask',
      no_sandbox: true,
      no_sandbox_confirmed: true,
    }
    const started = await dispatch('startJob', { kind: 'agent', job })
    if (!('ok' in started) || !started.ok) throw new Error(`startJob failed: ${JSON.stringify(started)}`)
    const { job_id } = started.value as { job_id: string }

    // The untrusted echo asks; approved once (not for the job), so its second call asks again.
    for (const round of [1, 2]) {
      const asked = await rig.waitFor(
        (event) =>
          event.type === 'approval.request' &&
          event.data.tool === 'mcp__tools__echo' &&
          rig.events.filter((e) => e.type === 'approval.request').length === round,
        30_000,
      )
      expect(asked.data.command).toContain('mcp__tools__echo {"text":')
      expect(await dispatch('decideApproval', { approval_id: asked.data.approval_id as string, decision: 'approved' })).toEqual({
        ok: true,
        value: { decided: true },
      })
    }
    await rig.engine.waitForJob(job_id)

    // Offered with the allowlist applied: secret (not listed) is not.
    expect(childTools).toEqual(expect.arrayContaining(['mcp__tools__echo', 'mcp__tools__hang', 'mcp__weather__weather']))
    expect(childTools).not.toContain('mcp__tools__secret')
    expect(childTools).not.toContain('mcp__tools__touch')
    const [echo, secret, crash, hang, garble, weather, again] = results
    expect(echo).toContain('ECHO: HELLO')
    expect(secret).toMatch(/^Error: there is no tool named "mcp__tools__secret"/)
    expect(crash).toMatch(/^Error: the MCP server "tools" exited \(code 3\) during the call/)
    expect(hang).toContain(`Error: the MCP server "tools" did not answer within ${callTimeoutMs} ms`)
    expect(garble).toMatch(/^Error: the MCP server "tools" sent output that is not JSON-RPC/)
    expect(weather).toContain('SUNNY in Oslo')
    expect(again).toContain('ECHO: AGAIN')
    expect(http.seenAuth.every((auth) => auth === 'Bearer tok-123')).toBe(true)

    // The trace: the call as a tool call like any, its approval, and a notice of each crash.
    const events: TraceEvent[] = rig.events
    const echoCall = events.find((event) => event.type === 'tool.call' && event.data.name === 'mcp__tools__echo')!
    expect(echoCall.data.arguments).toEqual({ text: 'hello' })
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool.result', data: expect.objectContaining({ name: 'mcp__tools__echo', ok: true }) }),
    )
    const notices = events.filter((event) => event.type === 'error' && event.data.mcp_server === 'tools').map((event) => event.data)
    expect(notices).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ mcp_phase: 'crashed', message: expect.stringContaining('exited (code 3)') }),
        expect.objectContaining({ mcp_phase: 'crashed', message: expect.stringContaining('not JSON-RPC') }),
      ]),
    )
    // The header's value is never in the trace.
    expect(JSON.stringify(events)).not.toContain('tok-123')
    expect(events.find((event) => event.type === 'job.end')?.data.status).toBe('completed')

    // Started three times (first, after the crash, after the garble); every one is gone after the job.
    const pids = readFileSync(pidFile, 'utf8').trim().split('\n').map(Number)
    expect(pids.length).toBe(3)
    await eventually(() => pids.every((pid) => !alive(pid)), 'the MCP servers to exit after the job')
  }, 90_000)
})

describe('MCP servers in Settings and in the sandbox', () => {
  it('listMcpServers lists the configured servers without starting them, and their tools when asked; no header or env value', async () => {
    const http = await startHttpMcpServer('tok-123')
    cleanups.push(() => http.close())
    const dir = project(http.url)
    const pidFile = path.join(dir, 'pids.txt')
    const rig = handlerEngine({ dbFile: path.join(tempDir(), 'arbor.db'), project: dir, cleanups })
    const dispatch = createDispatcher(rig.engine.handlers)

    const listed = await dispatch('listMcpServers', {})
    expect(listed).toEqual({
      ok: true,
      value: {
        errors: [],
        servers: [
          expect.objectContaining({
            name: 'tools',
            source: '.mcp.json',
            transport: 'stdio',
            profiles: ['mcp-worker'],
            status: 'configured',
          }),
          expect.objectContaining({ name: 'weather', transport: 'http', target: http.url, status: 'configured' }),
        ],
      },
    })
    expect(http.seenAuth).toEqual([])

    const shown = await rig.engine.handlers.listMcpServers({ start: true })
    const [tools, weather] = shown.servers
    // The stdio server ran in the OS sandbox (the default), was listed and stopped.
    expect(tools?.error).toBeUndefined()
    expect(tools).toMatchObject({ status: 'started' })
    expect(tools!.tools!.map((tool) => tool.name)).toEqual(['echo', 'crash', 'hang', 'garble', 'touch', 'secret'])
    expect(tools!.tools![0]).toEqual({ name: 'echo', description: 'Echoes its text back, upper-cased.' })
    expect(weather).toMatchObject({ status: 'started', tools: [{ name: 'weather', description: 'The weather in a city.' }] })
    expect(JSON.stringify(shown)).not.toContain('tok-123')
    expect(JSON.stringify(shown)).not.toContain(pidFile)

    // A broken .mcp.json: the file and field, and the profile that names its servers does not load.
    writeFileSync(path.join(dir, '.mcp.json'), JSON.stringify({ mcpServers: { tools: { command: 42 } } }))
    const broken = await dispatch('listMcpServers', {})
    expect(broken).toMatchObject({
      ok: true,
      value: {
        servers: [],
        errors: [
          { file: '.mcp.json', field: 'mcpServers.tools.command', message: expect.stringContaining('must be a string') },
          { file: '.arbor/agents/mcp-worker.md', field: 'mcpServers', message: expect.stringContaining('unknown MCP server "tools"') },
        ],
      },
    })
  }, 60_000)

  it('a stdio server runs in the job’s sandbox: it writes in the project, not outside it', async () => {
    const http = await startHttpMcpServer('tok-123')
    cleanups.push(() => http.close())
    const outside = tempDir()
    const dir = project(http.url)
    writeFileSync(
      path.join(dir, '.arbor/agents/mcp-worker.md'),
      profileFile.replace('mcpTrusted: [', 'mcpTrusted: [mcp__tools__touch, ').replace('tools: [', 'tools: [mcp__tools__touch, '),
    )
    const results: string[] = []
    const record = (view: ConversationView) => results.push(view.tool_results.map((result) => result.content).join('\n'))
    const model = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'ROOT-TASK',
          turns: [call('task', { description: 'MCP-CHILD', prompt: 'MCP-CHILD: touch.', subagent_type: 'mcp-worker' }), finish('ok')],
        },
        {
          match: 'MCP-CHILD',
          turns: [
            call('mcp__tools__touch', { path: path.join(dir, 'inside.txt') }),
            (view) => (record(view), call('mcp__tools__touch', { path: path.join(outside, 'outside.txt') })),
            (view) => (record(view), finish('touched')),
          ],
        },
      ]),
    })
    cleanups.push(() => model.close())
    const rig = handlerEngine({ dbFile: path.join(tempDir(), 'arbor.db'), project: dir, cleanups, mcpCallTimeoutMs: callTimeoutMs })
    const job: NewJob = {
      ...defaultNewJob(),
      task: 'ROOT-TASK: touch files',
      provider: 'openai_compatible',
      base_url: `${model.url}/v1`,
      model: 'llama3.1',
    }
    const started = await createDispatcher(rig.engine.handlers)('startJob', { kind: 'agent', job })
    if (!('ok' in started) || !started.ok) throw new Error(JSON.stringify(started))
    await rig.engine.waitForJob((started.value as { job_id: string }).job_id)
    expect(results[0]).toContain(`wrote ${path.join(dir, 'inside.txt')}`)
    expect(readFileSync(path.join(dir, 'inside.txt'), 'utf8')).toBe('touched\n')
    // What the server wrote is the MCP call's change, found as a bash command's are.
    const touch = rig.events.find((event) => event.type === 'tool.call' && event.data.name === 'mcp__tools__touch')
    const changes = rig.events.filter((event) => event.type === 'file.change').map((event) => event.data)
    expect(changes).toEqual([
      expect.objectContaining({ path: 'inside.txt', kind: 'created', tool: 'mcp__tools__touch', by_tool_call: touch?.data.call_id }),
    ])
    expect(results[1]).toMatch(/^Error: mcp__tools__touch returned an error: cannot write .*outside\.txt: (EROFS|EACCES|EPERM|ENOENT)/)
    // (Outside the project, /tmp is the sandbox's private one: the folder is not even there.)
    expect(existsSync(path.join(outside, 'outside.txt'))).toBe(false)
  }, 60_000)
})
