/**
 * `npm run bench [-- file.ts ...]`: every benchmark (or the named ones), each in its own process,
 * each printing its figures against a baseline measured in the same run (bench/results.ts). The
 * figures are then written to bench/results.json with the machine they came from. A run of named
 * benches replaces only their figures there, so the file can be refreshed a bench at a time.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { writeDocs } from '../scripts/benchmarks-doc'
import { resultsFileVariable, type Result } from './results'

const benches = [
  'store.ts',
  'export.ts',
  'supervisor.ts',
  'spawn.ts',
  'agents.ts',
  'cli.ts',
  'graph.ts',
  'inspector.ts',
  'load.ts',
  'main-thread.ts',
  'steer.ts',
  'faults.ts',
  'changes.ts',
]
const selected = process.argv.length > 2 ? process.argv.slice(2) : benches
const dir = mkdtempSync(join(tmpdir(), 'arbor-bench-run-'))
const runFile = join(dir, 'results.jsonl')
const loadBefore = loadavg()

try {
  for (const bench of selected) {
    console.log(`\n=== bench/${bench}`)
    const result = spawnSync(process.execPath, ['--import', 'tsx', resolve(import.meta.dirname, bench)], {
      stdio: 'inherit',
      env: { ...process.env, [resultsFileVariable]: runFile },
    })
    if (result.status !== 0) process.exitCode = 1
  }
  const measured = existsSync(runFile)
    ? readFileSync(runFile, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => ({ ...(JSON.parse(line) as Result), measured_at: new Date().toISOString(), node: process.version }))
    : []
  const target = resolve(import.meta.dirname, 'results.json')
  const kept =
    selected === benches || !existsSync(target) ? [] : (JSON.parse(readFileSync(target, 'utf8')) as { results: Result[] }).results
  const names = new Set(measured.map((result) => result.name))
  const results = [...kept.filter((result) => !names.has(result.name)), ...measured]
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    node: process.version,
    platform: `${process.platform} ${process.arch}`,
    load_average_before: loadBefore.map((value) => Number(value.toFixed(2))),
    load_average_after: loadavg().map((value) => Number(value.toFixed(2))),
  }
  writeFileSync(target, JSON.stringify({ written_at: new Date().toISOString(), machine, results }, null, 2) + '\n')
  writeDocs()
  const missed = measured.filter((result) => result.met === false)
  console.log(
    `\n${measured.length} figures written to bench/results.json; ${missed.length} missed their goal${missed.length ? ': ' + missed.map((result) => result.name).join(', ') : ''}`,
  )
} finally {
  rmSync(dir, { recursive: true, force: true })
}
