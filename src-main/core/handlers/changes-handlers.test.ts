import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { complete, createTestRig, taskCall, type TestRig } from '../supervisor/testing'

let rig: TestRig | undefined
afterEach(async () => {
  await rig?.engine.close()
  rig = undefined
})

const write = (path: string, content: string) => ({ name: 'write_file', arguments: { path, content } })
const edit = (path: string, from: string, to: string) => ({ name: 'edit_file', arguments: { path, old_string: from, new_string: to } })

/**
 * The Changes API on a job of real agent processes (scripted model) changing real files: each
 * child's changes are exactly its own, a revert of one leaves the other's work, and a revert a
 * later agent's change stands in the way of is refused, naming that agent.
 */
describe('changes and revert through the API, with real agents', () => {
  it("shows each child only its own files and diffs, reverts one child's work alone, and names the later agent in the way", async () => {
    rig = createTestRig()
    const { engine, project } = rig
    const jobId = rig.start({
      root: [
        // Two children at once, on files of their own; then a third that edits the first one's file again.
        { tool_calls: [taskCall('Editor', 'worker'), taskCall('Writer', 'worker')] },
        { tool_calls: [taskCall('Fixer', 'worker')] },
        complete('done'),
      ],
      children: {
        Editor: [
          { tool_calls: [edit('index.js', '42', '43')] },
          { tool_calls: [write('src/editor.ts', 'export const e = 1\n')] },
          complete('edited'),
        ],
        Writer: [
          { tool_calls: [write('README.md', '# Rewritten\n')] },
          { tool_calls: [write('notes/writer.md', 'mine\n')] },
          complete('written'),
        ],
        Fixer: [{ tool_calls: [edit('src/editor.ts', '1', '2')] }, complete('fixed')],
      },
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
    expect(await files('Writer')).toEqual([
      ['notes/writer.md', 'created', 1, 0],
      ['README.md', 'modified', 1, 3],
    ])
    expect(await files('Fixer')).toEqual([['src/editor.ts', 'modified', 1, 1]])
    const whole = await engine.handlers.getChanges({ job_id: jobId, agent_id: id('root'), subtree: true })
    expect(whole.files.map((file) => file.path)).toEqual(['index.js', 'notes/writer.md', 'README.md', 'src/editor.ts'])
    expect(whole.by_agent).toEqual({ [id('Editor')]: 2, [id('Writer')]: 2, [id('Fixer')]: 1 })

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

    // The Writer's revert puts its files back and leaves the Editor's and the Fixer's work.
    const reverted = await engine.handlers.revertChanges({ agent_id: id('Writer') })
    expect(reverted.reverted && [...reverted.files].sort()).toEqual(['README.md', 'notes/writer.md'])
    expect(readFileSync(join(project, 'README.md'), 'utf8')).toBe('# Fixture project\n\nA small project for supervisor tests.\n')
    expect(existsSync(join(project, 'notes/writer.md'))).toBe(false)
    expect(readFileSync(join(project, 'src/editor.ts'), 'utf8')).toBe('export const e = 2\n')
    expect(await files('Writer')).toEqual([])
    expect(await files('Editor')).toHaveLength(2)

    // Bad input is a clear error, not an internal one.
    await expect(engine.handlers.getFileDiff({ job_id: jobId, agent_id: id('Writer'), path: 'index.js' })).rejects.toThrow(/not found/)
    await expect(engine.handlers.getChanges({ job_id: jobId, agent_id: 'agent-of-no-job' })).rejects.toThrow(/not found/)
  }, 60_000)
})
