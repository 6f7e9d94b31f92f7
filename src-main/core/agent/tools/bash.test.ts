import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toSupervisorSchema, type ToSupervisor } from '../../protocol/messages'
import { SupervisorLink } from '../supervisor-link'
import { fixedClock } from '../testing'
import { builtinTools } from './builtin'
import { Toolset } from './toolset'
import type { ApprovalOutcome, ApprovalRequest, ToolContext } from './types'

let project: string
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'arbor-bash-'))
})
afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

const toolset = new Toolset(builtinTools, ['bash'])
const bash = (args: Record<string, unknown>, extra: Partial<ToolContext> = {}) =>
  toolset.run(
    { id: 'c1', name: 'bash', arguments: JSON.stringify(args) },
    { projectDir: project, callId: 'c1', spawn: async () => ({ ok: false, error: 'none' }), ...extra },
  )

/** Whether a process is gone. A zombie (dead, not yet reaped by an init that does not reap) counts as gone. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch {
    return true
  }
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return true
  }
}

async function waitUntilGone(pid: number, withinMs = 3_000): Promise<boolean> {
  const until = Date.now() + withinMs
  while (Date.now() < until) {
    if (isGone(pid)) return true
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return isGone(pid)
}

const pidsIn = (output: string): number[] => [...output.matchAll(/PID=(\d+)/g)].map((match) => Number(match[1]))

describe('bash', () => {
  it('runs in the project folder and returns the exit code and stdout+stderr together', async () => {
    const result = await bash({ command: 'pwd; echo out; echo err >&2; exit 3' })
    expect(result.ok).toBe(true)
    const [status, ...lines] = result.output.split('\n')
    expect(status).toBe('exit code: 3')
    expect(lines).toEqual([await import('node:fs/promises').then((fs) => fs.realpath(project)), 'out', 'err'])
  })

  it('says when there is no output, and uses bash', async () => {
    expect((await bash({ command: 'true' })).output).toBe('exit code: 0\n(no output)')
    expect((await bash({ command: 'echo ${BASH_VERSION:+bash}' })).output).toBe('exit code: 0\nbash')
  })

  it('does not hand the provider API keys to commands', async () => {
    process.env.OPENAI_API_KEY = 'sk-test-secret'
    try {
      expect((await bash({ command: 'echo "key=[$OPENAI_API_KEY]"' })).output).toBe('exit code: 0\nkey=[]')
    } finally {
      delete process.env.OPENAI_API_KEY
    }
  })

  it('cuts output at 50,000 characters with a marker saying how much was cut', async () => {
    // 120,000 characters of output after the 13-character status line "exit code: 0\n".
    const result = await bash({ command: "head -c 120000 /dev/zero | tr '\\0' x" })
    expect(result.truncated).toBe(true)
    expect(result.output.startsWith(`exit code: 0\n${'x'.repeat(1000)}`)).toBe(true)
    expect(result.output.endsWith('\n\n[output truncated: 70,013 characters cut]')).toBe(true)
    expect(result.output.length).toBe(50_000 + '\n\n[output truncated: 70,013 characters cut]'.length)
  })

  it('on timeout kills the whole process group: a grandchild started in the background is gone', async () => {
    const started = Date.now()
    const result = await bash({ command: 'sleep 30 & echo "PID=$!"; sleep 30; wait', timeout_ms: 300 })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result.ok).toBe(true)
    expect(result.output).toMatch(/^timed out after 300 ms: the command and its child processes were stopped; output so far:\nPID=\d+$/)
    const [grandchild] = pidsIn(result.output)
    expect(grandchild).toBeGreaterThan(0)
    expect(await waitUntilGone(grandchild!)).toBe(true)
  })

  it('on timeout kills with SIGKILL what ignores SIGTERM', async () => {
    const result = await bash({ command: `(trap '' TERM; sleep 30) & echo "PID=$!"; wait`, timeout_ms: 300 })
    expect(result.output).toMatch(/^timed out after 300 ms/)
    const [subshell] = pidsIn(result.output)
    expect(await waitUntilGone(subshell!)).toBe(true)
  })

  it('stops background processes the command leaves running, instead of waiting for them', async () => {
    const started = Date.now()
    const result = await bash({ command: 'sleep 30 & echo "PID=$!"' })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result.output).toMatch(/^exit code: 0 \(background processes it left running were stopped\)\nPID=\d+$/)
    expect(await waitUntilGone(pidsIn(result.output)[0]!)).toBe(true)
  })

  it('kills the process group when the agent is stopped', async () => {
    const stop = new AbortController()
    const pidFile = join(project, 'pid')
    const running = bash({ command: `sleep 30 & echo $! > ${pidFile}; sleep 30; wait` }, { signal: stop.signal })
    const until = Date.now() + 5_000
    while (!existsSync(pidFile) || readFileSync(pidFile, 'utf8').trim() === '') {
      if (Date.now() > until) throw new Error('the command did not start')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const grandchild = Number(readFileSync(pidFile, 'utf8'))
    stop.abort('killed')
    const result = await running
    expect(result.output).toMatch(/^stopped: the agent was stopped/)
    expect(await waitUntilGone(grandchild)).toBe(true)
  })

  it('caps timeout_ms at 600,000 and rejects a non-positive one', async () => {
    expect((await bash({ command: 'echo ok', timeout_ms: 10_000_000 })).output).toBe('exit code: 0\nok')
    expect((await bash({ command: 'echo ok', timeout_ms: 0 })).output).toMatch(/invalid arguments for bash/)
  })
})

describe('bash: risky commands and approvals', () => {
  beforeEach(async () => {
    await writeFile(join(project, 'doomed.txt'), 'x')
  })

  /** A real SupervisorLink over a fake transport: records what the agent sends, answers approvals with `decide`. */
  function supervisor(decide: (message: Extract<ToSupervisor, { type: 'approval' }>) => 'approved' | 'denied' | undefined) {
    const sent: ToSupervisor[] = []
    let next = 0
    const link: SupervisorLink = new SupervisorLink(
      (message) => {
        sent.push(toSupervisorSchema.parse(message))
        if (message.type !== 'approval') return
        const decision = decide(message)
        if (decision) queueMicrotask(() => link.receive({ type: 'approval_result', approval_id: message.approval_id, decision }))
      },
      fixedClock,
      () => `approval_${++next}`,
    )
    return { link, sent }
  }

  it('asks for approval before a risky command, and runs it when approved', async () => {
    const { link, sent } = supervisor(() => 'approved')
    const result = await bash({ command: 'rm doomed.txt && echo removed' }, { requestApproval: (request) => link.requestApproval(request) })
    expect(sent).toEqual([{ type: 'approval', approval_id: 'approval_1', tool: 'bash', command: 'rm doomed.txt && echo removed', reason: 'deletes files (rm)' }])
    expect(result).toMatchObject({ ok: true, output: '[risky: deletes files (rm); approved by the supervisor]\nexit code: 0\nremoved' })
    expect(existsSync(join(project, 'doomed.txt'))).toBe(false)
  })

  it('does not run a denied command, and says who denied it', async () => {
    const asked: ApprovalRequest[] = []
    const result = await bash(
      { command: 'rm doomed.txt' },
      {
        requestApproval: async (request): Promise<ApprovalOutcome> => {
          asked.push(request)
          return { decision: 'denied', by: 'auto_deny' }
        },
      },
    )
    expect(asked).toEqual([{ tool: 'bash', command: 'rm doomed.txt', reason: 'deletes files (rm)' }])
    expect(result).toMatchObject({ ok: false, output: 'Error: the command was denied by auto_deny (risky: deletes files (rm)); it was not run' })
    expect(existsSync(join(project, 'doomed.txt'))).toBe(true)
  })

  it('does not run a command denied through the link', async () => {
    const { link, sent } = supervisor(() => 'denied')
    const result = await bash({ command: 'chmod 000 doomed.txt' }, { requestApproval: (request) => link.requestApproval(request) })
    expect(sent).toHaveLength(1)
    expect(result.output).toBe('Error: the command was denied by the supervisor (risky: changes permissions or ownership (chmod)); it was not run')
    expect(readFileSync(join(project, 'doomed.txt'), 'utf8')).toBe('x')
  })

  it('asks nothing for a command that is not risky', async () => {
    const { link, sent } = supervisor(() => 'denied')
    const result = await bash({ command: 'echo hi > notes.txt && cat notes.txt' }, { requestApproval: (request) => link.requestApproval(request) })
    expect(result.output).toBe('exit code: 0\nhi')
    expect(sent).toEqual([])
  })

  it('refuses a risky command when the agent cannot ask for approval', async () => {
    const result = await bash({ command: 'rm doomed.txt' })
    expect(result).toMatchObject({ ok: false, output: expect.stringMatching(/risky \(deletes files \(rm\)\) and this agent cannot ask for approval; it was not run/) })
    expect(existsSync(join(project, 'doomed.txt'))).toBe(true)
  })

  it('does not run the command when the agent is stopped while waiting for approval', async () => {
    const { link, sent } = supervisor(() => undefined)
    const stop = new AbortController()
    const running = bash({ command: 'rm doomed.txt' }, { signal: stop.signal, requestApproval: (request) => link.requestApproval(request, stop.signal) })
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(sent.map((message) => message.type)).toEqual(['approval'])
    stop.abort('killed')
    expect(await running).toMatchObject({ ok: false, output: 'Error: the command was not run: the agent was stopped while waiting for approval' })
    expect(existsSync(join(project, 'doomed.txt'))).toBe(true)
  })
})

describe('SupervisorLink.requestApproval', () => {
  const request = (command: string): ApprovalRequest => ({ tool: 'bash', command, reason: 'deletes files (rm)' })

  it('keeps several approvals pending and settles each by its id', async () => {
    const sent: ToSupervisor[] = []
    let next = 0
    const link = new SupervisorLink((message) => void sent.push(message), fixedClock, () => `approval_${++next}`)
    const first = link.requestApproval(request('rm a'))
    const second = link.requestApproval(request('rm b'))
    expect(sent.map((message) => message.type === 'approval' && [message.approval_id, message.command])).toEqual([
      ['approval_1', 'rm a'],
      ['approval_2', 'rm b'],
    ])
    link.receive({ type: 'approval_result', approval_id: 'approval_2', decision: 'denied' })
    link.receive({ type: 'approval_result', approval_id: 'approval_1', decision: 'approved' })
    expect(await second).toEqual({ decision: 'denied', by: null })
    expect(await first).toEqual({ decision: 'approved', by: null })
  })

  it('rejects on abort, and reports a result for an approval nobody asked for', async () => {
    const sent: ToSupervisor[] = []
    const link = new SupervisorLink((message) => void sent.push(message), fixedClock, () => 'approval_x')
    const stop = new AbortController()
    const pending = link.requestApproval(request('rm a'), stop.signal)
    stop.abort()
    await expect(pending).rejects.toThrow('the agent was stopped while waiting for approval')
    link.receive({ type: 'approval_result', approval_id: 'approval_x', decision: 'approved' })
    expect(sent.at(-1)).toMatchObject({ type: 'event', event_type: 'error', data: { message: 'approval_result for unknown approval approval_x' } })
    const already = new AbortController()
    already.abort()
    await expect(link.requestApproval(request('rm b'), already.signal)).rejects.toThrow(/stopped/)
  })

  it('makes random approval ids by default (unique across the agents of a job)', async () => {
    const sent: ToSupervisor[] = []
    const link = new SupervisorLink((message) => void sent.push(message), fixedClock)
    void link.requestApproval(request('rm a'))
    void link.requestApproval(request('rm b'))
    const ids = sent.map((message) => (message.type === 'approval' ? message.approval_id : ''))
    expect(ids[0]).toMatch(/^approval_[0-9a-f-]{36}$/)
    expect(ids[0]).not.toBe(ids[1])
  })
})
