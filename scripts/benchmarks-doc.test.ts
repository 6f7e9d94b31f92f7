import { mkdtempSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { expectedDocs, formatNumber, readResults, renderGoals, replaceBlock, repoRoot, type BenchFile } from './benchmarks-doc'

const file: BenchFile = {
  written_at: '2026-12-02T10:00:00.000Z',
  machine: { cpu: 'Test CPU', cores: 2, node: 'v26.12.1', platform: 'linux x64', load_average_before: [1.5], load_average_after: [2] },
  results: [
    { name: 'store.writer', value: 91_234.5, unit: 'events/cpu-s', baseline: 100_000, ratio: 0.912345, goal: 'ratio >= 0.9', met: true },
    { name: 'store.bare_insert', value: 100_000, unit: 'events/cpu-s', baseline: null, ratio: null, goal: null, met: null },
    {
      name: 'supervisor.overhead_per_step',
      value: 1.2346,
      unit: 'ms',
      baseline: null,
      ratio: null,
      goal: 'value <= 1',
      met: false,
      measured_at: '2026-12-01T09:00:00.000Z',
      node: 'v20.20.2',
    },
  ],
}

describe('the benchmark tables', () => {
  it('show only the figures with a goal in the README, with the count of goals met and the machine', () => {
    const table = renderGoals(file)
    expect(table).toContain(
      '| Trace writer with projections, against the bare loop | 91,235 events/cpu-s | 100,000 | 0.91 | ratio >= 0.9 (met) |',
    )
    expect(table).toContain('| Supervisor overhead per model step | 1.235 ms |  |  | value <= 1 (missed) |')
    expect(table).not.toContain('Bare better-sqlite3')
    expect(table).toContain('1 of 2 goals met. Test CPU, 2 cores, linux x64, Node v26.12.1')
  })

  it('format numbers with grouped digits and no trailing zeros', () => {
    expect([formatNumber(1_234_567.8), formatNumber(12.5), formatNumber(4), formatNumber(0.0004), formatNumber(null)]).toEqual([
      '1,234,568',
      '12.5',
      '4',
      '0',
      '–',
    ])
  })

  it('fill only their block and refuse a file without one', () => {
    const text = 'before\n<!-- bench:goals:start -->\nold\n<!-- bench:goals:end -->\nafter\n'
    expect(replaceBlock(text, 'goals', 'new')).toBe('before\n<!-- bench:goals:start -->\nnew\n<!-- bench:goals:end -->\nafter\n')
    expect(() => replaceBlock('no markers', 'goals', 'new')).toThrow(/no <!-- bench:goals:start -->/)
  })

  it('date each bench by when its figures were measured, not by the last run', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'arbor-bench-doc-'))
    mkdirSync(path.join(root, 'docs'))
    writeFileSync(path.join(root, 'docs/benchmarks.md'), '# B\n<!-- bench:figures:start -->\n<!-- bench:figures:end -->\n')
    writeFileSync(path.join(root, 'README.md'), '<!-- bench:goals:start -->\n<!-- bench:goals:end -->\n')
    const doc = expectedDocs(file, root).get('docs/benchmarks.md')!
    expect(doc).toContain('### store\n\nMeasured 2026-12-02 on Node v26.12.1.')
    expect(doc).toContain('### supervisor\n\nMeasured 2026-12-01 on Node v20.20.2.')
  })

  it('in README.md and docs/benchmarks.md show bench/results.json as it is (npm run bench:doc writes them)', () => {
    for (const [file, text] of expectedDocs(readResults())) expect(readFileSync(path.join(repoRoot, file), 'utf8'), file).toBe(text)
  })
})
