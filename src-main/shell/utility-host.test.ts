import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import type { ForkOptions, UtilityProcess } from 'electron'
import { describe, expect, it, vi } from 'vitest'
import type { ToAgent } from '../core/protocol/messages'
import { createUtilityProcessHost } from './utility-host'

// Electron's utilityProcess cannot run here (no Electron binary): a stand-in with the same
// events records what the host does with it. Only types come from 'electron'.

class FakeUtilityProcess extends EventEmitter {
  pid: number | undefined = undefined
  posted: unknown[] = []
  killCalls = 0
  stdout = new PassThrough()
  stderr = new PassThrough()
  postMessage(message: unknown): void {
    this.posted.push(message)
  }
  kill(): boolean {
    this.killCalls += 1
    return true
  }
}

function setup() {
  const forks: { modulePath: string; args: string[]; options: ForkOptions; child: FakeUtilityProcess }[] = []
  const lines: string[] = []
  const host = createUtilityProcessHost({
    agentScript: '/opt/arbor/out/main/agent.js',
    fork: (modulePath, args, options) => {
      const child = new FakeUtilityProcess()
      forks.push({ modulePath, args, options, child })
      return child as unknown as UtilityProcess
    },
    log: (line) => lines.push(line),
  })
  return { host, forks, lines }
}

describe('createUtilityProcessHost', () => {
  it('forks the agent entry as a named utility process with piped output and its id', () => {
    const { host, forks } = setup()
    host.spawn({ agentId: 'agent_1' })
    expect(forks).toHaveLength(1)
    expect(forks[0]?.modulePath).toBe('/opt/arbor/out/main/agent.js')
    expect(forks[0]?.args).toEqual([])
    expect(forks[0]?.options).toMatchObject({ serviceName: 'arbor-agent', stdio: 'pipe' })
    expect(forks[0]?.options.env).toMatchObject({ ARBOR_AGENT_ID: 'agent_1' })
  })

  it('passes messages both ways and reports the exit code once late messages have had time to arrive', async () => {
    const { host, forks } = setup()
    const agent = host.spawn({ agentId: 'agent_1' })
    const child = forks[0]!.child
    const received: unknown[] = []
    const exits: [number | null, string | null][] = []
    agent.onMessage((message) => received.push(message))
    agent.onExit((code, signal) => exits.push([code, signal]))

    const decision: ToAgent = { type: 'approval_result', approval_id: 'approval_1', decision: 'approved' }
    agent.send(decision)
    child.emit('message', { type: 'ready' })
    child.emit('exit', 3)
    agent.send(decision)
    // A message that was queued behind the exit still arrives first.
    child.emit('message', { type: 'event', late: true })
    expect(exits).toEqual([])
    await vi.waitFor(() => expect(exits).toEqual([[3, null]]))

    expect(child.posted).toEqual([decision])
    expect(received).toEqual([{ type: 'ready' }, { type: 'event', late: true }])
  })

  it("kills with Electron's kill, and forces SIGKILL by pid", () => {
    const { host, forks } = setup()
    const agent = host.spawn({ agentId: 'agent_1' })
    const child = forks[0]!.child
    agent.kill(false)
    expect(child.killCalls).toBe(1)
    // No pid (not spawned yet): force falls back to Electron's kill.
    agent.kill(true)
    expect(child.killCalls).toBe(2)
    child.emit('exit', 0)
    agent.kill(true)
    expect(child.killCalls).toBe(2)
  })

  it('forces a real process to end with SIGKILL', async () => {
    const { spawn } = await import('node:child_process')
    const sleeper = spawn(process.execPath, ['-e', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000)'])
    await new Promise((resolve) => sleeper.once('spawn', resolve))
    const { host, forks } = setup()
    const agent = host.spawn({ agentId: 'agent_1' })
    forks[0]!.child.pid = sleeper.pid
    const exited = new Promise<NodeJS.Signals | null>((resolve) => sleeper.once('exit', (_code, signal) => resolve(signal)))
    agent.kill(true)
    expect(await exited).toBe('SIGKILL')
    expect(forks[0]!.child.killCalls).toBe(0)
  })

  it("prefixes the agent's output lines with its id", async () => {
    const { host, forks, lines } = setup()
    host.spawn({ agentId: 'agent_7' })
    const child = forks[0]!.child
    child.stdout.write('hello\nwor')
    child.stdout.end('ld\n')
    child.stderr.end('oops\n')
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(lines.sort()).toEqual(['[agent agent_7] hello', '[agent agent_7] oops', '[agent agent_7] world'])
  })
})
