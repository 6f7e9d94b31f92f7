import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultNewJob, type NewJob } from '../api/job-form'
import type { Engine } from '../engine'
import type { ConversationView } from '../providers/testing/fake-http'
import { openaiConversations, startFakeOpenAI } from '../providers/testing/fake-openai'
import type { TraceEvent } from '../trace/events'
import { useCleanups } from '../testing/cleanups'
import { handlerEngine } from './testing'
import { hostFolder } from '../agent/tools/sandbox.testing'

/**
 * Worktree isolation end to end (issue 22 §2): real git repositories in temp folders, real agent
 * processes (their bash in bubblewrap), a local server streaming the OpenAI wire format, and the
 * API through the dispatcher. Two isolated children change one line differently; the parent's
 * model merges the first (its folder has it) and gets the second's conflict (nothing applied);
 * the user's Merge of the second conflicts as well and Discard removes its worktree, keeping its branch.
 */

const { cleanups, tempDir } = useCleanups('arbor-worktree-')
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' })

/** A repository outside /tmp: the sandbox gives commands a private /tmp, where a write to the parent's tree would land unseen. */
function gitProject(): string {
  const project = path.join(mkdtempSync(path.join(hostFolder(), 'arbor-worktree-')), 'shop')
  cleanups.push(() => rmSync(path.dirname(project), { recursive: true, force: true }))
  mkdirSync(project)
  git(project, 'init', '-q', '-b', 'main')
  writeFileSync(path.join(project, 'shared.txt'), 'one\ntwo\nthree\n')
  writeFileSync(path.join(project, 'modified.txt'), 'committed\n')
  git(project, 'add', '-A')
  git(project, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init')
  // Uncommitted parent state: a tracked file changed, a file never added.
  writeFileSync(path.join(project, 'modified.txt'), 'changed, not committed\n')
  writeFileSync(path.join(project, 'untracked.txt'), 'never added\n')
  return project
}

/** Every file of the work tree but .git, with its bytes. */
function treeBytes(dir: string): Record<string, string> {
  const files: Record<string, string> = {}
  const walk = (folder: string) => {
    for (const name of readdirSync(folder)) {
      if (name === '.git') continue
      const file = path.join(folder, name)
      if (statSync(file).isDirectory()) walk(file)
      else files[path.relative(dir, file)] = readFileSync(file).toString('base64')
    }
  }
  walk(dir)
  return files
}

const job = (baseUrl: string): NewJob => ({
  ...defaultNewJob(),
  task: 'ROOT-TASK: change line two both ways',
  provider: 'openai_compatible',
  base_url: baseUrl,
  model: 'llama3.1',
  max_concurrent_children: 2,
  subagent_approvals: 'approve',
})

const finish = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const isolated = (description: string) => ({
  name: 'task',
  arguments: { description, prompt: `${description}: change line two of shared.txt`, subagent_type: 'worker', isolation: 'worktree' },
})
const bash = (command: string) => ({ tool_calls: [{ name: 'bash', arguments: { command } }] })

/** The agent ids of the two envelopes the root's `task` calls returned, in call order. */
const childIds = (view: ConversationView): string[] =>
  [...view.tool_results]
    .sort((a, b) => a.tool_call_id.localeCompare(b.tool_call_id))
    .map((result) => (JSON.parse(result.content) as { agent_id: string }).agent_id)

async function jobEvents(engine: Engine, jobId: string): Promise<TraceEvent[]> {
  const tree = await engine.handlers.getTree({ job_id: jobId })
  const events: TraceEvent[] = []
  for (const agent of tree.agents) events.push(...(await engine.handlers.getEvents({ agent_id: agent.id })).events)
  return events.sort((a, b) => a.seq - b.seq)
}

describe('worktree isolation', () => {
  it("two children on their own branches: the parent's merge_branch applies the first, the second conflicts and applies nothing; Merge and Discard", async () => {
    const project = gitProject()
    // Arbor's data folder apart from the project, as in the app: the sandbox hides it (a tmpfs over it).
    const rig = handlerEngine({ dbFile: path.join(tempDir(), 'arbor.db'), project, warmPool: 0, cleanups })
    const headBefore = git(project, 'rev-parse', 'HEAD')
    const indexBefore = git(project, 'ls-files', '--stage')
    let ids: string[] = []
    const snapshots: Record<string, string>[] = []
    const server = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'CHILD-A',
          turns: [
            bash("sed -i 's/two/alpha/' shared.txt && cp untracked.txt seen-untracked.txt && cp modified.txt seen-modified.txt"),
            bash(`echo hacked > ${project}/hacked.txt`),
            finish('alpha'),
          ],
        },
        {
          match: 'CHILD-B',
          turns: [
            { tool_calls: [{ name: 'edit_file', arguments: { path: 'shared.txt', old_string: 'two', new_string: 'beta' } }] },
            finish('beta'),
          ],
        },
        {
          match: 'ROOT-TASK',
          turns: [
            { tool_calls: [isolated('CHILD-A'), isolated('CHILD-B')] },
            (view) => {
              ids = childIds(view)
              return { tool_calls: [{ name: 'merge_branch', arguments: { agent_id: ids[0] } }] }
            },
            () => {
              snapshots.push(treeBytes(project))
              return { tool_calls: [{ name: 'merge_branch', arguments: { agent_id: ids[1] } }] }
            },
            () => {
              snapshots.push(treeBytes(project))
              return finish('merged one, the other conflicts')
            },
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`) })
    await rig.engine.waitForJob(job_id)
    const events = await jobEvents(rig.engine, job_id)
    const [first, second] = ids as [string, string]
    expect(first && second).toBeTruthy()

    // Both branches exist, each with its child's commit by "Arbor agent <label>".
    const created = events.filter((event) => event.type === 'worktree' && event.data.action === 'created')
    expect(created.map((event) => event.agent_id).sort()).toEqual([first, second].sort())
    const branchOf = (agent: string) => String(created.find((event) => event.agent_id === agent)!.data.branch)
    expect(branchOf(first)).toMatch(new RegExp(`^arbor/${job_id.replace(/[^a-z0-9]+/gi, '-').toLowerCase()}/child-a-[a-z0-9]{1,6}$`))
    expect(git(project, 'branch', '--list', 'arbor/*').trim().split('\n')).toHaveLength(2)
    expect(git(project, 'log', '-1', '--format=%an <%ae>', branchOf(first)).trim()).toBe('Arbor agent CHILD-A <arbor@localhost>')
    expect(git(project, 'log', '-1', '--format=%s', branchOf(second)).trim()).toBe('CHILD-B')

    // The parent's uncommitted state was in the child's worktree: a changed tracked file, an untracked one.
    expect(git(project, 'show', `${branchOf(first)}:seen-untracked.txt`)).toBe('never added\n')
    expect(git(project, 'show', `${branchOf(first)}:seen-modified.txt`)).toBe('changed, not committed\n')

    // The envelopes name the branch and the files.
    const envelopes = events.filter((event) => event.type === 'subagent.end').map((event) => event.data.envelope)
    const envelopeOf = (agent: string) => envelopes.find((envelope) => envelope.agent_id === agent)!
    expect(envelopeOf(first).branch).toBe(branchOf(first))
    expect(envelopeOf(first).changed_files?.sort()).toEqual(['seen-modified.txt', 'seen-untracked.txt', 'shared.txt'])
    expect(envelopeOf(second).changed_files).toEqual(['shared.txt'])

    // The child's bash could not write the parent's tree (bubblewrap binds only its worktree writable).
    expect(existsSync(path.join(project, 'hacked.txt'))).toBe(false)
    const hack = events.filter((event) => event.type === 'tool.result' && event.agent_id === first)[1]
    expect(hack?.data.output).toMatch(/Read-only file system/)

    // The first merge applied to the parent's working tree; its index and HEAD are untouched.
    expect(readFileSync(path.join(project, 'shared.txt'), 'utf8')).toBe('one\nalpha\nthree\n')
    expect(readFileSync(path.join(project, 'seen-untracked.txt'), 'utf8')).toBe('never added\n')
    expect(git(project, 'rev-parse', 'HEAD')).toBe(headBefore)
    expect(git(project, 'ls-files', '--stage')).toBe(indexBefore)
    const results = events.filter((event) => event.type === 'tool.result' && event.data.name === 'merge_branch')
    expect(results.map((event) => event.data.ok)).toEqual([true, false])
    expect(results[1]!.data.output).toMatch(/conflicts[\s\S]*nothing was applied[\s\S]*shared\.txt[\s\S]*<<<<<<<[\s\S]*beta/)
    // The second merge applied nothing: the parent's tree byte for byte as before it.
    expect(snapshots).toHaveLength(2)
    expect(snapshots[1]).toEqual(snapshots[0])
    const actions = (agent: string) =>
      events.filter((event) => event.type === 'worktree' && event.agent_id === agent).map((event) => event.data.action)
    expect(actions(first)).toEqual(['created', 'committed', 'merged', 'removed'])
    expect(actions(second)).toEqual(['created', 'committed', 'conflict'])
    const firstPath = String(created.find((event) => event.agent_id === first)!.data.path)
    const secondPath = String(created.find((event) => event.agent_id === second)!.data.path)
    expect(existsSync(firstPath)).toBe(false)
    expect(existsSync(secondPath)).toBe(true)

    // The user: the worktree left is listed; Merge of the second conflicts file by file and applies nothing.
    expect(await rig.dispatch('listWorktrees', {})).toEqual({
      ok: true,
      value: { worktrees: [{ path: secondPath, branch: branchOf(second), agent_id: second, job_id, left: true }] },
    })
    const before = treeBytes(project)
    const merge = await rig.dispatch('mergeBranch', { agent_id: second })
    expect(merge).toMatchObject({ ok: true, value: { merged: false, branch: branchOf(second), conflicts: [{ path: 'shared.txt' }] } })
    expect(treeBytes(project)).toEqual(before)
    // Revert does not reach into a worktree: its paths are the worktree's, not the project's.
    const revert = await rig.dispatch('revertChanges', { agent_id: second })
    expect(revert).toMatchObject({ ok: true, value: { reverted: false, blocks: [{ reason: 'worktree', agent_id: second }] } })
    expect(treeBytes(project)).toEqual(before)

    // Discard removes the worktree and keeps the branch.
    expect(await rig.dispatch('discardBranch', { agent_id: second })).toEqual({
      ok: true,
      value: { branch: branchOf(second), removed: true },
    })
    expect(existsSync(secondPath)).toBe(false)
    expect(git(project, 'branch', '--list', branchOf(second)).trim()).toBe(branchOf(second))
    expect(await rig.dispatch('listWorktrees', {})).toEqual({ ok: true, value: { worktrees: [] } })

    // Each change is recorded in the folder it was made in: the children's in their worktrees (by
    // branch), the merge's in the project, on the child whose work it brought (tool merge).
    const changes = (await jobEvents(rig.engine, job_id)).filter((event) => event.type === 'file.change')
    const changeOf = (agent: string, tool: string) =>
      changes
        .filter((event) => event.agent_id === agent && event.data.tool === tool)
        .map((event) => [event.data.path, event.data.kind, event.data.branch])
    expect(changeOf(first, 'bash').sort()).toEqual([
      ['seen-modified.txt', 'created', branchOf(first)],
      ['seen-untracked.txt', 'created', branchOf(first)],
      ['shared.txt', 'modified', branchOf(first)],
    ])
    expect(changeOf(second, 'edit_file')).toEqual([['shared.txt', 'modified', branchOf(second)]])
    expect(changeOf(first, 'merge').sort()).toEqual([
      ['seen-modified.txt', 'created', undefined],
      ['seen-untracked.txt', 'created', undefined],
      ['shared.txt', 'modified', undefined],
    ])
    expect(changeOf(second, 'merge')).toEqual([])
    // The job's Changes: the project's files first, then each worktree's; one path in two folders is two files.
    const listed = await rig.engine.handlers.getChanges({ job_id })
    expect(listed.files.map((file) => [file.branch, file.path, file.authors.map((author) => author.tool)])).toEqual([
      [undefined, 'seen-modified.txt', ['merge']],
      [undefined, 'seen-untracked.txt', ['merge']],
      [undefined, 'shared.txt', ['merge']],
      [branchOf(first), 'seen-modified.txt', ['bash']],
      [branchOf(first), 'seen-untracked.txt', ['bash']],
      [branchOf(first), 'shared.txt', ['bash']],
      [branchOf(second), 'shared.txt', ['edit_file']],
    ])
    expect(listed.by_agent).toMatchObject({ [first]: 3, [second]: 1 })
    const inWorktree = await rig.engine.handlers.getFileDiff({ job_id, agent_id: second, path: 'shared.txt', branch: branchOf(second) })
    expect(inWorktree.hunks.flatMap((hunk) => hunk.lines.filter((line) => line.kind !== 'context'))).toEqual([
      { kind: 'removed', text: 'two', old_line: 2, new_line: null },
      { kind: 'added', text: 'beta', old_line: null, new_line: 2 },
    ])
    // The merge's hunk in the project links to the child's command that made it in its worktree.
    const sedCall = events.find((event) => event.type === 'tool.call' && event.agent_id === first && event.data.name === 'bash')!
    const merged = await rig.engine.handlers.getFileDiff({ job_id, path: 'shared.txt' })
    expect(merged.hunks.map((hunk) => hunk.tool_call)).toEqual([{ agent_id: first, call_id: sedCall.data.call_id, seq: sedCall.seq }])
    expect(await rig.dispatch('getFileDiff', { job_id, agent_id: second, path: 'shared.txt' })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    // A merged branch's changes are the project's: Revert undoes the merge, all of it.
    const undo = await rig.dispatch('revertChanges', { agent_id: first })
    expect(undo).toEqual({ ok: true, value: { reverted: true, files: ['seen-modified.txt', 'seen-untracked.txt', 'shared.txt'] } })
    expect(readFileSync(path.join(project, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n')
    expect(existsSync(path.join(project, 'seen-untracked.txt'))).toBe(false)
    expect(existsSync(path.join(project, 'seen-modified.txt'))).toBe(false)
    expect(readFileSync(path.join(project, 'untracked.txt'), 'utf8')).toBe('never added\n')

    // Bad requests get clear errors.
    expect(await rig.dispatch('mergeBranch', { agent_id: '' })).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    expect(await rig.dispatch('mergeBranch', { agent_id: 'agent_nope' })).toMatchObject({ ok: false, error: { code: 'not_found' } })
    const root = events.find((event) => event.type === 'agent.start' && event.parent_id === null)!.agent_id!
    expect(await rig.dispatch('discardBranch', { agent_id: root })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/did not run in a worktree/) },
    })
  }, 60_000)

  it("a profile's isolation: worktree; no Merge or Discard while the child runs; worktrees left behind are listed, never deleted", async () => {
    const project = gitProject()
    mkdirSync(path.join(project, '.arbor', 'agents'), { recursive: true })
    const profile =
      '---\nname: brancher\ndescription: Works on its own branch.\nisolation: worktree\ntools: [bash, attempt_completion]\n---\n\nYou work on your own branch.\n'
    writeFileSync(path.join(project, '.arbor', 'agents', 'brancher.md'), profile)
    const rig = handlerEngine({ dbFile: path.join(tempDir(), 'arbor.db'), project, warmPool: 0, cleanups })
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-C', turns: [bash('until [ -f go ]; do sleep 0.05; done; echo done > made.txt'), finish('made')] },
        {
          match: 'ROOT-TASK',
          turns: [
            {
              tool_calls: [
                { name: 'task', arguments: { description: 'CHILD-C', prompt: 'CHILD-C: make a file', subagent_type: 'brancher' } },
              ],
            },
            finish('left on its branch'),
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`) })
    const created = await rig.waitFor((event) => event.type === 'worktree' && event.data.action === 'created')
    const child = created.agent_id!
    const worktreePath = String(created.data.path)
    await rig.waitFor((event) => event.type === 'tool.call' && event.agent_id === child)

    // While it runs in its worktree: refused, and nothing recorded.
    for (const method of ['mergeBranch', 'discardBranch'] as const) {
      expect(await rig.dispatch(method, { agent_id: child })).toMatchObject({
        ok: false,
        error: { code: 'conflict', message: expect.stringMatching(/still running in its worktree/) },
      })
    }
    expect(await rig.dispatch('listWorktrees', {})).toMatchObject({ ok: true, value: { worktrees: [{ agent_id: child, left: false }] } })

    writeFileSync(path.join(worktreePath, 'go'), '')
    await rig.engine.waitForJob(job_id)
    const events = await jobEvents(rig.engine, job_id)
    expect(events.filter((event) => event.type === 'worktree').map((event) => event.data.action)).toEqual(['created', 'committed'])
    expect(readFileSync(path.join(worktreePath, 'made.txt'), 'utf8')).toBe('done\n')
    expect(existsSync(path.join(project, 'made.txt'))).toBe(false)

    // A worktree nobody merged or discarded, and one of a job this store never saw: both listed, both kept.
    const stranger = path.join(path.dirname(worktreePath), 'stranger')
    git(project, 'worktree', 'add', '-q', '-b', 'arbor/elsewhere/stranger-1', stranger)
    const listed = await rig.dispatch('listWorktrees', { project })
    expect(listed).toMatchObject({ ok: true })
    const worktrees = listed.ok
      ? (listed.value as { worktrees: Array<{ path: string; agent_id: string | null; left: boolean }> }).worktrees
      : []
    expect(
      worktrees.map(({ path: where, agent_id, left }) => ({ where, agent_id, left })).sort((a, b) => a.where.localeCompare(b.where)),
    ).toEqual(
      [
        { where: worktreePath, agent_id: child, left: true },
        { where: stranger, agent_id: null, left: true },
      ].sort((a, b) => a.where.localeCompare(b.where)),
    )
    expect(existsSync(worktreePath) && existsSync(stranger)).toBe(true)
  }, 60_000)

  it("refuses isolation: 'worktree' outside a git repository: the task tool's error says why", async () => {
    const project = path.join(tempDir(), 'plain')
    mkdirSync(project)
    writeFileSync(path.join(project, 'README.md'), '# not a repository\n')
    const rig = handlerEngine({ dbFile: path.join(path.dirname(project), 'arbor.db'), project, warmPool: 0, cleanups })
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'CHILD-A', turns: [finish('should not run')] },
        { match: 'ROOT-TASK', turns: [{ tool_calls: [isolated('CHILD-A')] }, finish('refused')] },
      ]),
    })
    cleanups.push(() => server.close())
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: job(`${server.url}/v1`) })
    await rig.engine.waitForJob(job_id)
    const events = await jobEvents(rig.engine, job_id)
    const result = events.find((event) => event.type === 'tool.result' && event.data.name === 'task')
    expect(result?.data.ok).toBe(false)
    expect(result?.data.output).toMatch(/isolation "worktree" needs a git repository.*is not in one/)
    expect(events.find((event) => event.type === 'subagent.denied')?.data.reason).toMatch(/needs a git repository/)
    expect(events.filter((event) => event.type === 'agent.start')).toHaveLength(1)
  }, 30_000)
})
