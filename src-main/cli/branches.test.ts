import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { hostFolder } from '../core/agent/tools/sandbox.testing'
import { openaiConversations, startFakeOpenAI } from '../core/providers/testing/fake-openai'
import { openDatabase } from '../core/store/database'
import { getAgents, listJobs } from '../core/store/queries'
import { useCleanups } from '../core/testing/cleanups'

/**
 * "Keep this branch, drop that one", headless: a real `arbor run` (its agents real processes,
 * their bash in bubblewrap, the model a local server streaming the OpenAI wire format) spawns two
 * children in their own git worktrees, which change one line differently; then the real CLI
 * lists their branches (`arbor changes`), merges the first (`arbor merge`), gets the second's
 * conflict with nothing applied, and discards it (`arbor discard`), keeping its branch.
 */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const { cleanups, tempDir } = useCleanups('arbor-branches-')
const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8' })

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

const arbor = (args: string[]): Promise<Outcome> =>
  new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', cli, ...args],
      { timeout: 60_000, env: { ...process.env, OPENAI_API_KEY: 'sk-test-branches' } },
      (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })

/** A committed repository outside /tmp (the sandbox gives commands a private /tmp). */
function gitProject(): string {
  const project = path.join(mkdtempSync(path.join(hostFolder(), 'arbor-branches-')), 'shop')
  cleanups.push(() => rmSync(path.dirname(project), { recursive: true, force: true }))
  mkdirSync(project)
  git(project, 'init', '-q', '-b', 'main')
  writeFileSync(path.join(project, 'shared.txt'), 'one\ntwo\nthree\n')
  git(project, 'add', '-A')
  git(project, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init')
  return project
}

const finish = (result: string) => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const isolated = (description: string) => ({
  name: 'task',
  arguments: { description, prompt: `${description}: change line two of shared.txt`, subagent_type: 'worker', isolation: 'worktree' },
})

describe('arbor merge and arbor discard', () => {
  it("list a job's worktree branches, merge one into the project, refuse the other's conflict applying nothing, discard it keeping its branch", async () => {
    const project = gitProject()
    const db = path.join(tempDir(), 'arbor.db')
    const server = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'CHILD-A',
          turns: [
            { tool_calls: [{ name: 'bash', arguments: { command: "sed -i 's/two/alpha/' shared.txt && echo new > added.txt" } }] },
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
        { match: 'ROOT-TASK', turns: [{ tool_calls: [isolated('CHILD-A'), isolated('CHILD-B')] }, finish('two branches')] },
      ]),
    })
    cleanups.push(() => server.close())
    const run = await arbor([
      'run',
      project,
      '--task',
      'ROOT-TASK: change line two both ways',
      '--provider',
      'openai_compatible',
      '--base-url',
      `${server.url}/v1`,
      '--model',
      'llama3.1',
      '--max-children',
      '2',
      '--subagent-approvals',
      'approve',
      '--warm-pool',
      '0',
      '--db',
      db,
    ])
    expect(run, run.stderr).toMatchObject({ code: 0 })
    const check = openDatabase(db)
    const agents = getAgents(check, listJobs(check)[0]!.id)
    check.close()
    const idOf = (label: string) => agents.find((agent) => agent.label === label)!.id
    const branchOf = (label: string) =>
      git(project, 'branch', '--list', `arbor/*/${label.toLowerCase()}-*`, '--format=%(refname:short)').trim()
    const [branchA, branchB] = [branchOf('CHILD-A'), branchOf('CHILD-B')]
    expect(branchA && branchB).toBeTruthy()

    // Both branches, committed and not merged; the project untouched.
    const listed = await arbor(['changes', 'last', '--db', db])
    expect(listed).toMatchObject({ code: 0, stderr: '' })
    // Each file in the folder it is in: the two shared.txt are two files, one per worktree.
    const [idA, idB] = [idOf('CHILD-A'), idOf('CHILD-B')]
    expect(listed.stdout.split('\n').slice(0, 4)).toEqual([
      `job ${agents[0]!.job_id}, the whole job: 3 files changed, +3 −2`,
      `A  added.txt  +1 −0  by CHILD-A (${idA})  in worktree ${branchA}`,
      `M  shared.txt  +1 −1  by CHILD-A (${idA})  in worktree ${branchA}`,
      `M  shared.txt  +1 −1  by CHILD-B (${idB})  in worktree ${branchB}`,
    ])
    expect(listed.stdout).toContain('worktree branches:')
    expect(listed.stdout).toContain(`⎇  ${branchA}  CHILD-A (${idOf('CHILD-A')})  committed, not merged, 2 files, worktree kept`)
    expect(listed.stdout).toContain(`⎇  ${branchB}  CHILD-B (${idOf('CHILD-B')})  committed, not merged, 1 file, worktree kept`)
    const own = await arbor(['changes', 'last', '--db', db, '--agent', 'CHILD-B'])
    expect(own.stdout).toContain(branchB)
    expect(own.stdout).not.toContain(branchA)
    expect(readFileSync(path.join(project, 'shared.txt'), 'utf8')).toBe('one\ntwo\nthree\n')

    // Keep the first: its branch applied to the project's working tree, HEAD untouched.
    const head = git(project, 'rev-parse', 'HEAD')
    const merged = await arbor(['merge', 'last', '--agent', 'CHILD-A', '--db', db])
    expect(merged).toMatchObject({ code: 0, stderr: '' })
    expect(merged.stdout.split('\n')).toEqual([
      `merged ${branchA} (CHILD-A) into its parent's folder: 2 files`,
      '  added.txt',
      '  shared.txt',
      '',
    ])
    expect(readFileSync(path.join(project, 'shared.txt'), 'utf8')).toBe('one\nalpha\nthree\n')
    expect(readFileSync(path.join(project, 'added.txt'), 'utf8')).toBe('new\n')
    expect(git(project, 'rev-parse', 'HEAD')).toBe(head)

    // The second conflicts with it: each file and hunk named, nothing applied (exit 1).
    const conflict = await arbor(['merge', 'last', '--agent', idOf('CHILD-B'), '--db', db])
    expect(conflict.code).toBe(1)
    expect(conflict.stdout).toContain(`${branchB} (CHILD-B) conflicts in 1 file: nothing was applied`)
    expect(conflict.stdout).toMatch(/C {2}shared\.txt\n<<<<<<<[\s\S]*alpha[\s\S]*=======[\s\S]*beta[\s\S]*>>>>>>>/)
    expect(readFileSync(path.join(project, 'shared.txt'), 'utf8')).toBe('one\nalpha\nthree\n')

    // Drop it: the worktree goes, the branch stays.
    const worktreeB = git(project, 'worktree', 'list', '--porcelain')
      .split('\n')
      .find((line) => line.startsWith('worktree ') && line.includes('child-b-'))!
      .slice('worktree '.length)
    const discarded = await arbor(['discard', 'last', '--agent', 'CHILD-B', '--db', db])
    expect(discarded).toMatchObject({ code: 0, stderr: '' })
    expect(discarded.stdout).toBe(`discarded CHILD-B's worktree; branch ${branchB} is kept (git branch -D ${branchB} deletes it)\n`)
    expect(existsSync(worktreeB)).toBe(false)
    expect(branchOf('CHILD-B')).toBe(branchB)
    const after = await arbor(['changes', 'last', '--db', db])
    // The merge's changes are the project's, attributed to the child whose work it brought.
    expect(after.stdout.split('\n').slice(1, 3)).toEqual([
      `A  added.txt  +1 −0  by CHILD-A (${idA}) via merge`,
      `M  shared.txt  +1 −1  by CHILD-A (${idA}) via merge`,
    ])
    const mergedDiff = await arbor(['changes', 'last', '--db', db, '--agent', 'CHILD-A', '--diff'])
    // Its hunk names the child's command that made it in the worktree.
    expect(mergedDiff.stdout).toMatch(
      /--- a\/shared\.txt\n\+\+\+ b\/shared\.txt\n@@ -1,3 \+1,3 @@ \(tool call call_\w+\)\n one\n-two\n\+alpha\n/,
    )
    expect(after.stdout).toContain(`⎇  ${branchA}  CHILD-A (${idOf('CHILD-A')})  merged, 2 files, worktree removed`)
    expect(after.stdout).toContain(`⎇  ${branchB}  CHILD-B (${idOf('CHILD-B')})  discarded, 1 file, worktree removed`)

    // Refused, with the reason and exit 2: the root ran without a worktree, an agent the job lacks, no agent at all.
    const root = await arbor(['merge', 'last', '--agent', agents.find((agent) => agent.parent_id === null)!.id, '--db', db])
    expect(root).toMatchObject({ code: 2, stderr: expect.stringMatching(/did not run in a worktree/) })
    expect(await arbor(['discard', 'last', '--agent', 'nobody', '--db', db])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('has no agent nobody'),
    })
    expect(await arbor(['merge', 'last', '--db', db])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('merge needs a job and an agent'),
    })
    expect(readFileSync(path.join(project, 'shared.txt'), 'utf8')).toBe('one\nalpha\nthree\n')
  }, 120_000)
})
