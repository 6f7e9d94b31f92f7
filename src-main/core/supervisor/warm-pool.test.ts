import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createEngine } from '../engine'
import { bundledAgentHost } from '../testing/load-job'
import { defaultSettings } from '../trace/model'
import { ForkProcessHost } from './fork-host'
import type { AgentProcess, ProcessHost } from './process-host'
import { WarmPool } from './warm-pool'

const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-warm-pool-'))
// A stand-in agent process: says ready with its pid, answers `start` once, ends with its channel.
const script = path.join(dir, 'agent.cjs')
writeFileSync(
  script,
  `process.send({ type: 'ready', pid: process.pid })
process.on('message', (message) => process.send({ type: 'started', pid: process.pid, agent: message.agent }))
process.on('disconnect', () => process.exit(0))
`,
)
const host = new ForkProcessHost({ entry: script })

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const alive = (pid: number | undefined): boolean => {
  try {
    process.kill(pid!, 0)
    return true
  } catch {
    return false
  }
}

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out')
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Everything a process said to whoever took it. */
function listen(process: AgentProcess): { messages: { type: string; pid: number; agent?: string }[] } {
  const heard = { messages: [] as { type: string; pid: number; agent?: string }[] }
  process.onMessage((message) => heard.messages.push(message as (typeof heard.messages)[number]))
  return heard
}

describe('WarmPool', () => {
  it('hands each process to one agent only, and refills after each', async () => {
    const pool = new WarmPool(host, 2)
    const first = pool.spawn({ agentId: 'agent_0' })
    await until(() => pool.waiting.length === 2)
    const pooled = new Set(pool.waiting)
    // Taken one after another and several in one go, as a parallel `task` fan-out does.
    const taken = [first, ...Array.from({ length: 7 }, (_, index) => pool.spawn({ agentId: `agent_${index + 1}` }))]
    const heard = taken.map(listen)
    taken.forEach((process, index) => process.send({ agent: `agent_${index}` } as never))
    await until(() => heard.every((each) => each.messages.some((message) => message.type === 'started')))
    const pids = taken.map((process) => process.pid)
    expect(new Set(pids).size).toBe(taken.length)
    expect(pids).toEqual(expect.arrayContaining([...pooled]))
    heard.forEach((each, index) => {
      // Its own ready (kept while it waited in the pool) and its own start, once each.
      expect(each.messages.map((message) => message.type)).toEqual(['ready', 'started'])
      expect(each.messages.every((message) => message.pid === pids[index])).toBe(true)
      expect(each.messages[1]?.agent).toBe(`agent_${index}`)
    })
    await until(() => pool.waiting.length === 2)
    expect(pool.waiting.some((pid) => pids.includes(pid))).toBe(false)
    await pool.close()
    for (const process of taken) process.kill(true)
  })

  it('starts the replacement of a taken process once its agent is under way', async () => {
    const pool = new WarmPool(host, 2)
    pool.spawn({ agentId: 'agent_0' }).kill(true)
    await until(() => pool.waiting.length === 2)
    const taken = pool.spawn({ agentId: 'agent_1' })
    const heard = listen(taken)
    // Said nothing yet as agent_1's process (its ready came while it waited): no replacement.
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(pool.waiting).toHaveLength(1)
    taken.send({ agent: 'agent_1' } as never)
    await until(() => heard.messages.some((message) => message.type === 'started'))
    await until(() => pool.waiting.length === 2)
    expect(pool.waiting).not.toContain(taken.pid)
    // One that ends before it says anything is replaced too.
    const silent = pool.spawn({ agentId: 'agent_2' })
    silent.kill(true)
    await until(() => pool.waiting.length === 2 && !pool.waiting.includes(silent.pid))
    taken.kill(true)
    await pool.close()
  })

  it('forks a replacement only once this thread is quiet, or after a second at most', async () => {
    let forks = 0
    const counting: ProcessHost = { spawn: (options) => (forks++, host.spawn(options)) }
    const pool = new WarmPool(counting, 1)
    pool.spawn({ agentId: 'agent_0' }).kill(true)
    await until(() => pool.waiting.length === 1)
    const taken = pool.spawn({ agentId: 'agent_1' })
    const heard = listen(taken)
    taken.send({ agent: 'agent_1' } as never)
    await until(() => heard.messages.some((message) => message.type === 'started'))
    // Under way, so a replacement is due; this thread is kept busy (as by agents' steps): none yet.
    const forked = forks
    const busyUntil = Date.now() + 400
    while (Date.now() < busyUntil) {
      const spin = Date.now() + 15
      while (Date.now() < spin);
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(forks).toBe(forked)
    // Quiet again: it comes within a few checks.
    const quietFrom = Date.now()
    await until(() => pool.waiting.length === 1)
    expect(Date.now() - quietFrom).toBeLessThan(500)
    expect(forks).toBe(forked + 1)

    // Busy for good: it comes anyway, a second after it was due.
    const second = pool.spawn({ agentId: 'agent_2' })
    second.kill(true)
    const due = Date.now()
    while (pool.waiting.length === 0 && Date.now() - due < 3000) {
      const spin = Date.now() + 15
      while (Date.now() < spin);
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(pool.waiting).toHaveLength(1)
    expect(Date.now() - due).toBeGreaterThanOrEqual(900)
    taken.kill(true)
    await pool.close()
  })

  it('replaces a pooled process that is killed while it waits', async () => {
    const pool = new WarmPool(host, 2)
    pool.spawn({ agentId: 'agent_0' }).kill(true)
    await until(() => pool.waiting.length === 2)
    const [victim, survivor] = pool.waiting
    process.kill(victim!, 'SIGKILL')
    await until(() => pool.waiting.length === 2 && !pool.waiting.includes(victim))
    expect(pool.waiting).toContain(survivor)
    // The replacement is a live process that serves an agent like any other.
    const next = pool.spawn({ agentId: 'agent_1' })
    expect(next.pid).not.toBe(victim)
    const heard = listen(next)
    await until(() => heard.messages.length > 0)
    expect(heard.messages[0]).toMatchObject({ type: 'ready', pid: next.pid })
    next.kill(true)
    await pool.close()
  })

  it('starts every process on demand with size 0, and close leaves no pooled process behind', async () => {
    const off = new WarmPool(host, 0)
    const onDemand = off.spawn({ agentId: 'agent_0' })
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(off.waiting).toEqual([])
    onDemand.kill(true)

    const pool = new WarmPool(host, 3)
    pool.spawn({ agentId: 'agent_1' }).kill(true)
    await until(() => pool.waiting.length === 3)
    const pooled = pool.waiting
    expect(pooled.every(alive)).toBe(true)
    await pool.close()
    expect(pooled.some(alive)).toBe(false)
    // Closed: an agent asked for afterwards still gets its own process, and none is started to wait.
    const late = pool.spawn({ agentId: 'agent_2' })
    expect(listen(late).messages).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(alive(late.pid)).toBe(true)
    expect(pool.waiting).toEqual([])
    late.kill(true)
  })
})

describe('an engine with a warm pool', () => {
  let agentHost: ForkProcessHost
  beforeAll(async () => {
    agentHost = await bundledAgentHost(dir)
  })

  it('runs a fan-out on pooled agent processes and leaves none running after close', async () => {
    const pids = new Set<number | undefined>()
    const recording: ProcessHost = {
      spawn(options) {
        const process = agentHost.spawn(options)
        pids.add(process.pid)
        return process
      },
    }
    const project = mkdtempSync(path.join(dir, 'project-'))
    writeFileSync(path.join(project, 'README.md'), '# Pool\n')
    const engine = createEngine({ dbFile: path.join(dir, 'pool.db'), processHost: recording, warmPool: 2, projectDir: project })
    const labels = ['a', 'b', 'c', 'd', 'e']
    const completion = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
    const script = {
      // One child at a time, each after the root thinks a little as a model would (the pool
      // refills at a quiet moment), so later children find the pool filled.
      root: [
        ...labels.map((description) => ({
          delay_ms: 150,
          tool_calls: [{ name: 'task', arguments: { description, subagent_type: 'worker', prompt: 'read the readme' } }],
        })),
        completion('all done'),
      ],
      children: Object.fromEntries(
        labels.map((label) => [
          label,
          [{ tool_calls: [{ name: 'read_file', arguments: { path: 'README.md' } }] }, completion(`child ${label} done`)],
        ]),
      ),
    }
    const jobId = engine.supervisor.startJob({ project, task: 'fan out', settings: defaultSettings({ script }) })
    await engine.waitForJob(jobId)
    const { agents } = await engine.handlers.getTree({ job_id: jobId })
    expect(agents).toHaveLength(6)
    expect(agents.every((agent) => agent.status === 'completed')).toBe(true)
    await engine.close()
    // Every process the pool started is gone: the used ones ended, the waiting ones were ended.
    expect(pids.size).toBeGreaterThan(6)
    await until(() => ![...pids].some(alive), 5_000)
  })
})
