/**
 * The cost of finding what a `bash` command changed (agent/changes/change-tracker.ts), per
 * command, on a 10,000-file git repository and on a 10,000-file folder that is not one: the
 * median wall time of a command run through the tracker (listing before, command, listing and
 * comparison after) against the same command alone, interleaved, in one run. Two commands:
 * `true`, and one that appends a line to one file. The command runs as the bash tool runs it
 * (run-command.ts), without the OS sandbox, so the baseline is the smallest a command costs and
 * the ratio the largest. The first command through a tracker (which reads the untracked files it
 * will need as before-versions: every file of the non-git folder) is reported on its own.
 * Run: nice -n 10 node --import tsx bench/changes.ts [files]
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { ChangeTracker } from '../src-main/core/agent/changes/change-tracker'
import type { FileChange } from '../src-main/core/protocol/file-change'
import { runCommand } from '../src-main/core/agent/tools/run-command'
import { record } from './results'

const files = Number(process.argv[2] ?? 10_000)
const rounds = 21
const root = mkdtempSync(join(tmpdir(), 'arbor-bench-changes-'))

/** `files` small source-like files in folders of 100, with a .gitignore and ignored build output. */
function makeProject(dir: string, git: boolean): void {
  mkdirSync(dir)
  for (let folder = 0; folder < files / 100; folder++) {
    const sub = join(dir, 'src', `mod${folder}`)
    mkdirSync(sub, { recursive: true })
    for (let file = 0; file < 100; file++) {
      writeFileSync(join(sub, `file${file}.ts`), `export const value${file} = ${folder * 100 + file}\n`.repeat(20))
    }
  }
  writeFileSync(join(dir, '.gitignore'), 'build/\n')
  mkdirSync(join(dir, 'build'))
  for (let file = 0; file < 500; file++) writeFileSync(join(dir, 'build', `out${file}.js`), 'ignored\n')
  if (!git) return
  const run = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=bench', '-c', 'user.email=bench@example.com', ...args], { cwd: dir, stdio: 'ignore' })
  run('init', '-q')
  run('add', '.')
  run('commit', '-q', '-m', 'start')
}

const command = (dir: string, text: string) => () =>
  runCommand({ command: text, cwd: dir, timeoutMs: 60_000, maxOutputCharacters: 10_000, env: process.env })

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now()
  await run()
  return performance.now() - started
}

async function measure(kind: 'git' | 'folder'): Promise<void> {
  const dir = join(root, kind)
  makeProject(dir, kind === 'git')
  const tracker = new ChangeTracker(dir)
  const changes: FileChange[] = []
  const tracked = (run: () => Promise<unknown>) => () => tracker.around(run, (change) => changes.push(change))
  const first = await timed(tracked(command(dir, 'true')))
  record({ name: `changes.${kind}_${files}.first_command`, value: first, unit: 'ms', baseline: null })
  const edit = `echo more >> src/mod0/file0.ts`
  const cases: Array<[string, string]> = [
    ['true', 'true'],
    ['edit_one_file', edit],
  ]
  for (const [name, text] of cases) {
    const alone: number[] = []
    const withDetection: number[] = []
    changes.length = 0
    for (let round = 0; round < rounds; round++) {
      alone.push(await timed(command(dir, text)))
      withDetection.push(await timed(tracked(command(dir, text))))
    }
    // Each tracked edit must have been found: the figure measures detection that works.
    const expected = name === 'true' ? 0 : rounds
    if (changes.length !== expected) throw new Error(`${kind} ${name}: ${changes.length} changes found, expected ${expected}`)
    record({
      name: `changes.${kind}_${files}.${name}`,
      value: median(withDetection),
      unit: 'ms',
      baseline: median(alone),
    })
    // The bound: detection must not cost seconds per command; half a second at most.
    record({
      name: `changes.${kind}_${files}.${name}.detection`,
      value: median(withDetection) - median(alone),
      unit: 'ms',
      baseline: null,
      goal: { atMost: 500, on: 'value' },
    })
  }
  tracker.close()
}

try {
  await measure('git')
  await measure('folder')
} finally {
  rmSync(root, { recursive: true, force: true })
}
