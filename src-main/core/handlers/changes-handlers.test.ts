import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { complete, createTestRig, taskCall, type TestRig } from '../supervisor/testing'
import { defaultSettings } from '../trace/model'

let rig: TestRig | undefined
afterEach(async () => {
  await rig?.engine.close()
  rig = undefined
})

const write = (path: string, content: string) => ({ name: 'write_file', arguments: { path, content } })
const edit = (path: string, from: string, to: string) => ({ name: 'edit_file', arguments: { path, old_string: from, new_string: to } })
const bash = (command: string) => ({ tool_calls: [{ name: 'bash', arguments: { command } }] })

/**
 * The Changes API on a job of real agent processes (scripted model) changing real files: each
 * child's changes are exactly its own, a revert of one leaves the other's work, and a revert a
 * later agent's change stands in the way of is refused, naming that agent.
 */
describe('changes and revert through the API, with real agents', () => {
  it("shows each child only its own files and diffs (edit_file and bash: sed -i, mv, rm, a new file), reverts one child's work alone, and names the later agent in the way", async () => {
    rig = createTestRig()
    const { engine, project } = rig
    writeFileSync(join(project, 'notes.txt'), 'moving\n')
    writeFileSync(join(project, 'gone.txt'), 'going\n')
    const readme = readFileSync(join(project, 'README.md'), 'utf8')
    const script = {
      root: [
        // One child after the other: a bash command's changes are found by comparing the project
        // before and after it, so a write of another agent during the command would be counted too.
        // Then a third edits the first one's file again.
        { tool_calls: [taskCall('Editor', 'worker')] },
        { tool_calls: [taskCall('Basher', 'worker')] },
        { tool_calls: [taskCall('Fixer', 'worker')] },
        complete('done'),
      ],
      children: {
        Editor: [
          { tool_calls: [edit('index.js', '42', '43')] },
          { tool_calls: [write('src/editor.ts', 'export const e = 1\n')] },
          complete('edited'),
        ],
        Basher: [
          bash("sed -i 's/Fixture project/Sed project/' README.md"),
          bash('mkdir -p docs && mv notes.txt docs/notes.md'),
          bash('rm gone.txt'),
          bash('echo fresh > fresh.txt'),
          complete('bashed'),
        ],
        Fixer: [{ tool_calls: [edit('src/editor.ts', '1', '2')] }, complete('fixed')],
      },
    }
    // The Basher's commands are risky: the job approves its subagents' commands.
    const jobId = engine.supervisor.startJob({
      project,
      task: 'test job',
      settings: defaultSettings({ script }),
      subagentApprovals: 'approve',
    })
    await engine.waitForJob(jobId)
    const { agents } = await engine.handlers.getTree({ job_id: jobId })
    const id = (label: string) => agents.find((agent) => agent.label === label)!.id
    const files = async (label: string) =>
      (await engine.handlers.getChanges({ job_id: jobId, agent_id: id(label) })).files.map((file) => [
        file.path,
        file.kind,
        file.added,
        file.removed,
      ])

    expect(await files('Editor')).toEqual([
      ['index.js', 'modified', 1, 1],
      ['src/editor.ts', 'created', 1, 0],
    ])
    expect(await files('Basher')).toEqual([
      ['docs/notes.md', 'renamed', 0, 0],
      ['fresh.txt', 'created', 1, 0],
      ['gone.txt', 'deleted', 0, 1],
      ['README.md', 'modified', 1, 1],
    ])
    expect(await files('Fixer')).toEqual([['src/editor.ts', 'modified', 1, 1]])
    const whole = await engine.handlers.getChanges({ job_id: jobId, agent_id: id('root'), subtree: true })
    expect(whole.files.map((file) => file.path)).toEqual([
      'docs/notes.md',
      'fresh.txt',
      'gone.txt',
      'index.js',
      'README.md',
      'src/editor.ts',
    ])
    expect(whole.by_agent).toEqual({ [id('Editor')]: 2, [id('Basher')]: 4, [id('Fixer')]: 1 })
    const sed = await engine.handlers.getFileDiff({ job_id: jobId, agent_id: id('Basher'), path: 'README.md' })
    expect(sed.hunks[0]!.lines.filter((line) => line.kind !== 'context').map((line) => line.text)).toEqual([
      '# Fixture project',
      '# Sed project',
    ])

    // The Editor's diff of index.js, its hunk linked to the edit_file call that made it.
    const diff = await engine.handlers.getFileDiff({ job_id: jobId, agent_id: id('Editor'), path: 'index.js' })
    const editCall = rig.events.find(
      (event) => event.type === 'tool.call' && event.agent_id === id('Editor') && event.data.name === 'edit_file',
    )!
    expect(diff.hunks.map((hunk) => hunk.lines.map((line) => `${line.kind[0]}${line.text}`))).toEqual([
      ['rexport const answer = 42', 'aexport const answer = 43'],
    ])
    expect(diff.hunks[0]!.tool_call).toEqual({
      agent_id: id('Editor'),
      call_id: (editCall.data as { call_id: string }).call_id,
      seq: editCall.seq,
    })

    // The Fixer changed the Editor's file later: the Editor's revert is refused, nothing written.
    const refused = await engine.handlers.revertChanges({ agent_id: id('Editor') })
    expect(refused).toMatchObject({
      reverted: false,
      blocks: [{ path: 'src/editor.ts', reason: 'later_change', agent_id: id('Fixer'), label: 'Fixer' }],
    })
    expect(readFileSync(join(project, 'index.js'), 'utf8')).toBe('export const answer = 43\n')

    // The Basher's revert puts its files back (the rename undone, the deleted file back, the new one gone) and leaves the Editor's and the Fixer's work.
    const reverted = await engine.handlers.revertChanges({ agent_id: id('Basher') })
    expect(reverted.reverted && [...reverted.files].sort()).toEqual(['README.md', 'fresh.txt', 'gone.txt', 'notes.txt'])
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe(readme)
    expect(readFileSync(join(project, 'notes.txt'), 'utf8')).toBe('moving\n')
    expect(readFileSync(join(project, 'gone.txt'), 'utf8')).toBe('going\n')
    expect([existsSync(join(project, 'docs/notes.md')), existsSync(join(project, 'fresh.txt'))]).toEqual([false, false])
    expect(readFileSync(join(project, 'src/editor.ts'), 'utf8')).toBe('export const e = 2\n')
    expect(readFileSync(join(project, 'index.js'), 'utf8')).toBe('export const answer = 43\n')
    expect(await files('Basher')).toEqual([])
    expect(await files('Editor')).toHaveLength(2)

    // Bad input is a clear error, not an internal one.
    await expect(engine.handlers.getFileDiff({ job_id: jobId, agent_id: id('Basher'), path: 'index.js' })).rejects.toThrow(/not found/)
    await expect(engine.handlers.getChanges({ job_id: jobId, agent_id: 'agent-of-no-job' })).rejects.toThrow(/not found/)
  }, 60_000)
})
