import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { toSupervisorSchema, type SandboxPolicy, type ToSupervisor } from '../../protocol/messages'
import { SupervisorLink } from '../supervisor-link'
import { fixedClock } from '../testing'
import { builtinTools } from './builtin'
import { processesWith, sleepMarker, waitUntilNoneWith } from './sandbox.testing'
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

const sandboxed: SandboxPolicy = { mode: 'sandboxed', network: false, protected_paths: [] }
const unsandboxed: SandboxPolicy = { mode: 'off', network: false, protected_paths: [] }

describe('bash', () => {
  it('runs in the project folder and returns the exit code and stdout+stderr together', async () => {
    const result = await bash({ command: 'pwd; echo out; echo err >&2; exit 3' })
    expect(result.ok).toBe(true)
    const [status, ...lines] = result.output.split('\n')
    expect(status).toBe('exit code: 3')
    expect(lines).toEqual([await realpath(project), 'out', 'err'])
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

  it('caps timeout_ms at 600,000 and rejects a non-positive one', async () => {
    expect((await bash({ command: 'echo ok', timeout_ms: 10_000_000 })).output).toBe('exit code: 0\nok')
    expect((await bash({ command: 'echo ok', timeout_ms: 0 })).output).toMatch(/invalid arguments for bash/)
  })

  it.skipIf(process.platform !== 'linux')('runs in the OS sandbox by default: the rest of the file system is read-only', async () => {
    // Approved when the risk rules flag it: an approval does not take a command out of the sandbox.
    const approve = async (): Promise<ApprovalOutcome> => ({ decision: 'approved', by: 'user' })
    const result = await bash(
      { command: 'exec 2>&1; target=/usr/arbor-sandbox-$$; touch "$target"; echo "exit=$?"' },
      { requestApproval: approve },
    )
    expect(result.output).toMatch(/Read-only file system\nexit=1$/)
  })
})

// A command's processes, in and out of the sandbox. Inside, `$!` is a PID of the sandbox's own
// namespace, so what is left on the host is found by a marker in the command line instead.
describe.each([
  ['in the sandbox', sandboxed],
  ['without the sandbox', unsandboxed],
])('bash: process groups, %s', (_mode, sandbox) => {
  const run = (args: Record<string, unknown>, extra: Partial<ToolContext> = {}) => bash(args, { sandbox, ...extra })

  it('on timeout kills the whole process group: a grandchild started in the background is gone', async () => {
    const marker = sleepMarker()
    const started = Date.now()
    const result = await run({ command: `sleep ${marker} & echo started; sleep ${marker}; wait`, timeout_ms: 300 })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result.ok).toBe(true)
    expect(result.output).toBe('timed out after 300 ms: the command and its child processes were stopped; output so far:\nstarted')
    expect(await waitUntilNoneWith(marker)).toEqual([])
  })

  it('on timeout kills with SIGKILL what ignores SIGTERM', async () => {
    const marker = sleepMarker()
    const result = await run({ command: `(trap '' TERM; sleep ${marker}) & wait`, timeout_ms: 300 })
    expect(result.output).toMatch(/^timed out after 300 ms/)
    expect(await waitUntilNoneWith(marker)).toEqual([])
  })

  it('stops background processes the command leaves running, instead of waiting for them', async () => {
    const marker = sleepMarker()
    const started = Date.now()
    const result = await run({ command: `sleep ${marker} & echo started` })
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(result.output).toBe('exit code: 0 (background processes it left running were stopped)\nstarted')
    expect(await waitUntilNoneWith(marker)).toEqual([])
  })

  it('does not claim to have stopped anything when nothing was left', async () => {
    expect((await run({ command: '(sleep 0.1; echo child) & wait; echo done' })).output).toBe('exit code: 0\nchild\ndone')
  })

  it('kills the process group when the agent is stopped', async () => {
    const marker = sleepMarker()
    const stop = new AbortController()
    const running = run({ command: `sleep ${marker} & sleep ${marker}; wait` }, { signal: stop.signal })
    const until = Date.now() + 5_000
    while (processesWith(`sleep ${marker}`).length < 2) {
      if (Date.now() > until) throw new Error('the command did not start')
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    stop.abort('killed')
    const result = await running
    expect(result.output).toMatch(/^stopped: the agent was stopped/)
    expect(await waitUntilNoneWith(marker)).toEqual([])
  })

  it('reports its process group to the supervisor when it starts and when it is gone', async () => {
    const reports: [number, boolean][] = []
    const result = await run({ command: 'echo hi' }, { trackProcess: (pgid, running) => void reports.push([pgid, running]) })
    expect(result.output).toBe('exit code: 0\nhi')
    expect(reports).toHaveLength(2)
    const [[pgid, started], [same, running]] = reports as [[number, boolean], [number, boolean]]
    expect([started, running, same]).toEqual([true, false, pgid])
    expect(groupExists(pgid)).toBe(false)
  })
})

describe('bash: processes that leave the process group', () => {
  /** Starts `sleep marker` in a session of its own and waits until it is there. */
  const escapee = (marker: string) =>
    `setsid sh -c 'echo started > escaped; exec sleep ${marker}' > /dev/null 2>&1 & until [ -s escaped ]; do sleep 0.01; done; cat escaped`

  it.skipIf(process.platform !== 'linux')('in the sandbox, a timeout leaves nothing behind, not even a setsid grandchild', async () => {
    const marker = sleepMarker()
    const result = await bash({ command: `sleep ${marker} & ${escapee(marker)}; wait`, timeout_ms: 1_000 }, { sandbox: sandboxed })
    expect(result.output).toBe('timed out after 1,000 ms: the command and its child processes were stopped; output so far:\nstarted')
    expect(await waitUntilNoneWith(marker)).toEqual([])
  })

  it.skipIf(process.platform !== 'linux')(
    'in the sandbox, a setsid grandchild left running at the end is stopped and reported',
    async () => {
      const marker = sleepMarker()
      const result = await bash({ command: escapee(marker) }, { sandbox: sandboxed })
      expect(result.output).toBe('exit code: 0 (background processes it left running were stopped)\nstarted')
      expect(await waitUntilNoneWith(marker)).toEqual([])
    },
  )

  it('without the sandbox, a setsid grandchild escapes (the limit of running without it)', async () => {
    const marker = sleepMarker()
    try {
      const result = await bash({ command: escapee(marker) }, { sandbox: unsandboxed })
      expect(result.output).toBe('exit code: 0\nstarted')
      expect(processesWith(`sleep ${marker}`)).toHaveLength(1)
    } finally {
      for (const pid of processesWith(`sleep ${marker}`)) process.kill(pid, 'SIGKILL')
    }
  })
})

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

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
    expect(sent).toEqual([
      { type: 'approval', approval_id: 'approval_1', tool: 'bash', command: 'rm doomed.txt && echo removed', reason: 'deletes files (rm)' },
    ])
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
    expect(result).toMatchObject({
      ok: false,
      output: 'Error: the command was denied by auto_deny (risky: deletes files (rm)); it was not run',
    })
    expect(existsSync(join(project, 'doomed.txt'))).toBe(true)
  })

  it('does not run a command denied through the link', async () => {
    const { link, sent } = supervisor(() => 'denied')
    const result = await bash({ command: 'chmod 000 doomed.txt' }, { requestApproval: (request) => link.requestApproval(request) })
    expect(sent).toHaveLength(1)
    expect(result.output).toBe(
      'Error: the command was denied by the supervisor (risky: changes permissions or ownership (chmod)); it was not run',
    )
    expect(readFileSync(join(project, 'doomed.txt'), 'utf8')).toBe('x')
  })

  it('asks nothing for a command that is not risky', async () => {
    const { link, sent } = supervisor(() => 'denied')
    const result = await bash(
      { command: 'echo hi > notes.txt && cat notes.txt' },
      { requestApproval: (request) => link.requestApproval(request) },
    )
    expect(result.output).toBe('exit code: 0\nhi')
    expect(sent).toEqual([])
  })

  it('refuses a risky command when the agent cannot ask for approval', async () => {
    const result = await bash({ command: 'rm doomed.txt' })
    expect(result).toMatchObject({
      ok: false,
      output: expect.stringMatching(/risky \(deletes files \(rm\)\) and this agent cannot ask for approval; it was not run/),
    })
    expect(existsSync(join(project, 'doomed.txt'))).toBe(true)
  })

  it('does not run the command when the agent is stopped while waiting for approval', async () => {
    const { link, sent } = supervisor(() => undefined)
    const stop = new AbortController()
    const running = bash(
      { command: 'rm doomed.txt' },
      { signal: stop.signal, requestApproval: (request) => link.requestApproval(request, stop.signal) },
    )
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(sent.map((message) => message.type)).toEqual(['approval'])
    stop.abort('killed')
    expect(await running).toMatchObject({
      ok: false,
      output: 'Error: the command was not run: the agent was stopped while waiting for approval',
    })
    expect(existsSync(join(project, 'doomed.txt'))).toBe(true)
  })
})

describe('SupervisorLink.requestApproval', () => {
  const request = (command: string): ApprovalRequest => ({ tool: 'bash', command, reason: 'deletes files (rm)' })

  it('keeps several approvals pending and settles each by its id', async () => {
    const sent: ToSupervisor[] = []
    let next = 0
    const link = new SupervisorLink(
      (message) => void sent.push(message),
      fixedClock,
      () => `approval_${++next}`,
    )
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
    const link = new SupervisorLink(
      (message) => void sent.push(message),
      fixedClock,
      () => 'approval_x',
    )
    const stop = new AbortController()
    const pending = link.requestApproval(request('rm a'), stop.signal)
    stop.abort()
    await expect(pending).rejects.toThrow('the agent was stopped while waiting for approval')
    link.receive({ type: 'approval_result', approval_id: 'approval_x', decision: 'approved' })
    expect(sent.at(-1)).toMatchObject({
      type: 'event',
      event_type: 'error',
      data: { message: 'approval_result for unknown approval approval_x' },
    })
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
