import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from '../store/database'
import { fileContentHash, getFileContent } from '../store/file-contents'
import { besideLabels } from '../trace/change-views'
import { complete, createTestRig, taskCall, type TestRig } from './testing'
import type { EventData, TraceEvent } from '../trace/events'

let rig: TestRig | undefined
afterEach(async () => {
  await rig?.engine.close()
  rig = undefined
})

const bash = (command: string) => ({ tool_calls: [{ name: 'bash', arguments: { command } }] })
const hash = (text: string | Buffer) => fileContentHash(Buffer.from(text))
const git = (project: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: project, stdio: 'ignore' })

/** A real job whose root runs `commands` (risky ones approved as they are asked); its file.change events, by the call they name. */
async function runCommands(setup: (project: string) => void, commands: string[]) {
  rig = createTestRig()
  const { engine, project } = rig
  setup(project)
  engine.subscribe((notification) => {
    if (notification.kind !== 'events') return
    for (const event of notification.events) {
      if (event.type === 'approval.request')
        void engine.handlers.decideApproval({ approval_id: String(event.data.approval_id), decision: 'approved' })
    }
  })
  const jobId = rig.start({ root: [...commands.map(bash), complete('done')], children: {} })
  await engine.waitForJob(jobId)
  const events = rig.events
  const callOf = (command: string): string => {
    const call = events.find((event) => event.type === 'tool.call' && (event.data.arguments as { command?: string }).command === command)
    return String(call?.data.call_id)
  }
  const changes = events.filter((event): event is TraceEvent & { type: 'file.change' } => event.type === 'file.change')
  const of = (command: string): Array<EventData<'file.change'>> =>
    changes.filter((event) => event.data.by_tool_call === callOf(command)).map((event) => event.data)
  const results = events
    .filter((event) => event.type === 'tool.result' && event.data.name === 'bash')
    .map((event) => String(event.data.output))
  return { project, of, all: changes.map((event) => event.data), results }
}

const readStored = (project: string, hashes: string[]) => {
  const db = openDatabase(join(dirname(project), 'arbor.db'))
  try {
    return hashes.map((one) => getFileContent(db, one)?.toString('utf8'))
  } finally {
    db.close()
  }
}

describe('bash commands record the files they changed (real git, real agent processes)', () => {
  it('in a git project: sed -i, mv, rm, new, binary and big files, a dirty file changed again; ignored files and no-op commands record nothing', async () => {
    const commands = [
      "sed -i 's/alpha/ALPHA/' notes.txt",
      'mv old.txt new.txt',
      'rm gone.txt',
      'echo fresh > fresh.txt && mkdir -p ignored && echo x > ignored/x.txt && echo y > debug.log',
      "printf '\\000\\001\\377' > bin.dat",
      'yes | head -c 1100000 > big.txt',
      "echo 'dirty 2' >> dirty.txt",
      'true',
    ]
    const { project, of, all, results } = await runCommands((dir) => {
      writeFileSync(join(dir, 'notes.txt'), 'alpha\nbeta\n')
      writeFileSync(join(dir, 'old.txt'), 'moving\n')
      writeFileSync(join(dir, 'gone.txt'), 'going\n')
      writeFileSync(join(dir, 'dirty.txt'), 'clean\n')
      writeFileSync(join(dir, '.gitignore'), 'ignored/\n*.log\n')
      git(dir, 'init', '-q')
      git(dir, 'add', '.')
      git(dir, 'commit', '-q', '-m', 'start')
      writeFileSync(join(dir, 'dirty.txt'), 'dirty 1\n')
    }, commands)
    expect(results.filter((output) => !output.startsWith('exit code: 0') && !output.includes('\nexit code: 0'))).toEqual([])
    const base = { tool: 'bash', content_stored: true }
    expect(of(commands[0]!)).toEqual([
      {
        ...base,
        path: 'notes.txt',
        kind: 'modified',
        by_tool_call: expect.any(String),
        bytes_before: 11,
        bytes_after: 11,
        hash_before: hash('alpha\nbeta\n'),
        hash_after: hash('ALPHA\nbeta\n'),
      },
    ])
    expect(of(commands[1]!)).toEqual([
      {
        ...base,
        path: 'new.txt',
        kind: 'renamed',
        from_path: 'old.txt',
        by_tool_call: expect.any(String),
        bytes_before: 7,
        bytes_after: 7,
        hash_before: hash('moving\n'),
        hash_after: hash('moving\n'),
      },
    ])
    expect(of(commands[2]!)).toEqual([
      {
        ...base,
        path: 'gone.txt',
        kind: 'deleted',
        by_tool_call: expect.any(String),
        bytes_before: 6,
        bytes_after: null,
        hash_before: hash('going\n'),
        hash_after: null,
      },
    ])
    expect(of(commands[3]!).map((change) => [change.path, change.kind])).toEqual([['fresh.txt', 'created']])
    expect(of(commands[4]!)).toMatchObject([
      { path: 'bin.dat', kind: 'created', hash_after: hash(Buffer.from([0, 1, 255])), content_stored: true },
    ])
    expect(of(commands[5]!)).toMatchObject([{ path: 'big.txt', kind: 'created', bytes_after: 1_100_000, content_stored: false }])
    expect(of(commands[5]!)[0]!.hash_after).toMatch(/^[0-9a-f]{64}$/)
    expect(of(commands[6]!)).toMatchObject([
      { path: 'dirty.txt', kind: 'modified', hash_before: hash('dirty 1\n'), hash_after: hash('dirty 1\ndirty 2\n'), content_stored: true },
    ])
    expect(of(commands[7]!)).toEqual([])
    expect(all.map((change) => change.path).filter((path) => path.startsWith('ignored') || path.endsWith('.log'))).toEqual([])
    // Every version the events say is stored is there, byte for byte.
    expect(readStored(project, [hash('alpha\nbeta\n'), hash('ALPHA\nbeta\n'), hash('going\n'), hash('dirty 1\n')])).toEqual([
      'alpha\nbeta\n',
      'ALPHA\nbeta\n',
      'going\n',
      'dirty 1\n',
    ])
  }, 90_000)

  it('in a folder that is not a git repository: from its files’ stat and contents, skipping what .gitignore skips', async () => {
    const commands = ["sed -i 's/one/two/' notes.txt", 'mkdir -p skip && echo s > skip/s.txt && echo n > new.txt', 'rm README.md']
    const { of } = await runCommands((dir) => {
      writeFileSync(join(dir, 'notes.txt'), 'one\n')
      writeFileSync(join(dir, '.gitignore'), 'skip/\n')
    }, commands)
    expect(of(commands[0]!)).toMatchObject([
      { path: 'notes.txt', kind: 'modified', hash_before: hash('one\n'), hash_after: hash('two\n'), content_stored: true },
    ])
    expect(of(commands[1]!).map((change) => [change.path, change.kind])).toEqual([['new.txt', 'created']])
    expect(of(commands[2]!)).toMatchObject([{ path: 'README.md', kind: 'deleted', content_stored: true }])
  }, 90_000)

  it('two commands of one message run one after the other, so each change is its own command’s', async () => {
    rig = createTestRig()
    const { engine } = rig
    const first = 'sleep 0.3 && echo 1 > first.txt'
    const second = 'echo 2 > second.txt'
    const jobId = rig.start({
      root: [
        {
          tool_calls: [
            { name: 'bash', arguments: { command: first } },
            { name: 'bash', arguments: { command: second } },
          ],
        },
        complete('done'),
      ],
      children: {},
    })
    await engine.waitForJob(jobId)
    const calls = new Map(
      rig.events
        .filter((event) => event.type === 'tool.call')
        .map((event) => [String(event.data.call_id), (event.data.arguments as { command?: string }).command]),
    )
    const changes = rig.events.filter((event) => event.type === 'file.change').map((event) => event.data as EventData<'file.change'>)
    expect(changes.map((change) => [calls.get(change.by_tool_call!), change.path]).sort()).toEqual([
      [second, 'second.txt'],
      [first, 'first.txt'],
    ])
  }, 60_000)

  it("marks the changes of two agents' commands that ran at once in one folder, and revert will not guess whose they are", async () => {
    rig = createTestRig()
    const { engine } = rig
    // STARTER writes a marker, then waits for WAITER's file: its listing after sees WAITER's
    // write as its own. WAITER writes only once STARTER's command runs, and ends after it.
    const starter = 'echo started > started.txt && while [ ! -f waiter.txt ]; do sleep 0.05; done && echo mine > starter.txt'
    const waiter =
      'while [ ! -f started.txt ]; do sleep 0.05; done && echo theirs > waiter.txt && while [ ! -f starter.txt ]; do sleep 0.05; done && sleep 1.5'
    const jobId = rig.start(
      {
        root: [{ tool_calls: [taskCall('STARTER', 'worker'), taskCall('WAITER', 'worker')] }, complete('done')],
        children: { STARTER: [bash(starter), complete('started')], WAITER: [bash(waiter), complete('waited')] },
      },
      { max_concurrent_children: 2 },
    )
    await engine.waitForJob(jobId)
    const label = new Map(
      rig.events.filter((event) => event.type === 'agent.start').map((event) => [event.agent_id, String(event.data.label)]),
    )
    const idOf = (name: string): string => [...label].find(([, value]) => value === name)![0]!
    const changes = rig.events.filter((event) => event.type === 'file.change')
    // Every change is STARTER's command's (WAITER's own listing saw only those again, dropped as
    // echoes), and each names WAITER's command, which ran meanwhile: any of them may be WAITER's.
    const waiterCall = rig.events.find((event) => event.type === 'tool.call' && event.agent_id === idOf('WAITER'))!.data.call_id
    const beside = [{ agent_id: idOf('WAITER'), call_id: waiterCall }]
    expect(changes.map((event) => [label.get(event.agent_id), event.data.path, event.data.concurrent_with]).sort()).toEqual([
      ['STARTER', 'started.txt', beside],
      ['STARTER', 'starter.txt', beside],
      ['STARTER', 'waiter.txt', beside],
    ])
    const listed = await engine.handlers.getChanges({ job_id: jobId, agent_id: idOf('STARTER') })
    expect(listed.files.map((file) => besideLabels(file))).toEqual([['WAITER'], ['WAITER'], ['WAITER']])
    const revert = await engine.handlers.revertChanges({ agent_id: idOf('STARTER') })
    expect(revert.reverted === false && revert.blocks.map((block) => [block.path, block.reason, block.label])).toEqual([
      ['started.txt', 'concurrent', 'WAITER'],
      ['starter.txt', 'concurrent', 'WAITER'],
      ['waiter.txt', 'concurrent', 'WAITER'],
    ])
    // With the other agent in the scope (the root's subtree) there is nobody else it may be: it reverts.
    const root = [...label].find(([, value]) => value !== 'STARTER' && value !== 'WAITER')![0]!
    expect(await engine.handlers.revertChanges({ agent_id: root, subtree: true })).toMatchObject({ reverted: true })
  }, 60_000)
})
