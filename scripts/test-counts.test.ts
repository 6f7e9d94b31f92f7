import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  countPlaywright,
  countRun,
  countVitest,
  playwrightFailures,
  summaryLine,
  vitestFailures,
  type PlaywrightReport,
  type VitestReport,
} from './test-counts.js'

const repoRoot = path.resolve(import.meta.dirname, '..')

/** Runs a runner's CLI from this repository on a folder of its own, and returns its exit status and JSON report. */
function runReport<R>(dir: string, args: string[], env: NodeJS.ProcessEnv = {}): { status: number | null; report: R } {
  const result = spawnSync(process.execPath, args, { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: '1', ...env } })
  return { status: result.status, report: JSON.parse(readFileSync(path.join(dir, 'report.json'), 'utf8')) as R }
}

/** A new folder holding these files (name to text). */
function folderWith(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-test-counts-'))
  for (const [name, text] of Object.entries(files)) writeFileSync(path.join(dir, name), text)
  return dir
}

/** Runs vitest on these test files, with its JSON report. */
function runVitest(files: Record<string, string>): { dir: string; status: number | null; report: VitestReport } {
  const dir = folderWith(files)
  const vitest = path.join(repoRoot, 'node_modules/vitest/vitest.mjs')
  return {
    dir,
    ...runReport<VitestReport>(dir, [vitest, 'run', '--root', dir, '--globals', '--reporter=json', '--outputFile.json=report.json']),
  }
}

/** Runs Playwright on these spec files, with its JSON report. The specs find @playwright/test in this repository's node_modules; they need no browser. */
function runPlaywright(files: Record<string, string>): { status: number | null; report: PlaywrightReport } {
  const dir = folderWith({ ...files, 'playwright.config.mjs': "export default { testDir: '.', reporter: [['json']] }\n" })
  symlinkSync(path.join(repoRoot, 'node_modules'), path.join(dir, 'node_modules'))
  const cli = path.join(repoRoot, 'node_modules/@playwright/test/cli.js')
  return runReport<PlaywrightReport>(dir, [cli, 'test', '--config', 'playwright.config.mjs'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: path.join(dir, 'report.json'),
  })
}

describe('test-all counting', () => {
  it('counts a vitest file that does not load as failed, beside its passed tests', () => {
    const { dir, status, report } = runVitest({
      'fine.test.js': "test('adds', () => expect(1 + 1).toBe(2))\n",
      'broken.test.js': "import './missing-module.js'\ntest('never runs', () => {})\n",
    })
    // What vitest itself says: a failed suite, no failed test.
    expect(status).not.toBe(0)
    expect(report.numFailedTests).toBe(0)
    expect(report.numFailedTestSuites).toBeGreaterThan(0)
    const counts = countRun(status, report, countVitest)
    expect(counts).toEqual({ passed: 1, failed: 1, skipped: 0 })
    expect(summaryLine([counts])).toBe('1 passed, 1 failed, 0 skipped')
    // The file that did not load is named, with the first line of why, for a log cut to its tail.
    expect(vitestFailures(report, dir)).toEqual([expect.stringMatching(/^broken\.test\.js: .*missing-module/)])
  })

  it('names each failed vitest test with its file, its describe blocks and the first line of its error', () => {
    const { dir, status, report } = runVitest({
      'mixed.test.js': [
        "describe('totals', () => {",
        "  test('adds', () => expect(1 + 1).toBe(2))",
        "  test('subtracts', () => expect(2 - 1).toBe(3))",
        '})',
        "test('throws', () => { throw new Error('first line\\nsecond line') })",
        '',
      ].join('\n'),
    })
    expect(status).not.toBe(0)
    expect(countRun(status, report, countVitest)).toEqual({ passed: 1, failed: 2, skipped: 0 })
    const failures = vitestFailures(report, dir)
    expect(failures).toHaveLength(2)
    expect(failures[0]).toMatch(/^mixed\.test\.js › totals subtracts: AssertionError: expected 1 to be 3/)
    expect(failures[1]).toBe('mixed.test.js › throws: Error: first line')
    // No colour codes reach the log line.
    expect(failures.join('')).not.toContain('\u001b')
  })

  it('counts a failed test once, not again as its failed file', () => {
    const report: VitestReport = {
      numPassedTests: 3,
      numFailedTests: 1,
      numPendingTests: 1,
      numTodoTests: 1,
      numFailedTestSuites: 2,
      testResults: [
        { status: 'failed', assertionResults: [{ status: 'passed' }, { status: 'failed' }] },
        { status: 'passed', assertionResults: [{ status: 'passed' }, { status: 'passed' }, { status: 'skipped' }, { status: 'todo' }] },
      ],
    }
    expect(countVitest(report)).toEqual({ passed: 3, failed: 1, skipped: 2 })
  })

  it('counts a Playwright spec file that does not load as failed', () => {
    const { status, report } = runPlaywright({
      'fine.spec.mjs': "import { expect, test } from '@playwright/test'\ntest('adds', () => expect(1 + 1).toBe(2))\n",
      'broken.spec.mjs': "throw new Error('this spec does not load')\n",
    })
    expect(status).not.toBe(0)
    // What Playwright itself says: no unexpected test, one error outside the tests.
    expect(report.stats?.unexpected).toBe(0)
    expect(report.errors?.map((error) => (error as { message?: string }).message)).toEqual([
      expect.stringContaining('this spec does not load'),
    ])
    // Playwright runs no test at all when a spec does not load.
    expect(countRun(status, report, countPlaywright)).toEqual({ passed: 0, failed: 1, skipped: 0 })
    expect(playwrightFailures(report)).toEqual([expect.stringMatching(/^outside the tests: .*this spec does not load/)])
  })

  it('names each failed Playwright test by its file, its describe blocks and its title', () => {
    const { status, report } = runPlaywright({
      'mixed.spec.mjs': [
        "import { expect, test } from '@playwright/test'",
        "test.describe('totals', () => {",
        "  test('adds', () => expect(1 + 1).toBe(2))",
        "  test('subtracts', () => expect(2 - 1).toBe(3))",
        '})',
        '',
      ].join('\n'),
    })
    expect(status).not.toBe(0)
    expect(countRun(status, report, countPlaywright)).toEqual({ passed: 1, failed: 1, skipped: 0 })
    const failures = playwrightFailures(report)
    expect(failures).toHaveLength(1)
    expect(failures[0]).toMatch(/^mixed\.spec\.mjs › totals › subtracts: Error: expect\(received\)\.toBe\(expected\)/)
  })

  it('counts a runner that failed with nothing failed in its report, or with no report, as one failure', () => {
    const clean: PlaywrightReport = { stats: { expected: 4, unexpected: 0, flaky: 1, skipped: 2 }, errors: [] }
    expect(countRun(0, clean, countPlaywright)).toEqual({ passed: 5, failed: 0, skipped: 2 })
    expect(countRun(1, clean, countPlaywright)).toEqual({ passed: 5, failed: 1, skipped: 2 })
    expect(countRun(1, undefined, countVitest)).toEqual({ passed: 0, failed: 1, skipped: 0 })
    expect(summaryLine([countRun(1, undefined, countVitest), countRun(0, clean, countPlaywright)])).toBe('5 passed, 1 failed, 2 skipped')
  })
})
