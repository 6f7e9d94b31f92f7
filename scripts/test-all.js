#!/usr/bin/env node
// Runs every test runner (vitest, then Playwright) and ends with one plain line summing them:
// "N passed, N failed, N skipped". Exits non-zero if any runner failed.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const reports = mkdtempSync(path.join(os.tmpdir(), 'arbor-test-reports-'))
const totals = { passed: 0, failed: 0, skipped: 0 }
let exitCode = 0

function run(name, command, args, env = {}) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  if (result.status !== 0) exitCode = 1
  return result.status
}

const vitestReport = path.join(reports, 'vitest.json')
run('unit and integration tests (vitest)', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
])
if (existsSync(vitestReport)) {
  const report = JSON.parse(readFileSync(vitestReport, 'utf8'))
  totals.passed += report.numPassedTests
  totals.failed += report.numFailedTests
  totals.skipped += report.numPendingTests + report.numTodoTests
} else {
  console.log('vitest wrote no report')
  totals.failed += 1
}

const playwrightReport = path.join(reports, 'playwright.json')
run('end-to-end tests (Playwright)', 'npx', ['playwright', 'test', '--reporter=list,json'], {
  PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
})
if (existsSync(playwrightReport)) {
  const { stats } = JSON.parse(readFileSync(playwrightReport, 'utf8'))
  totals.passed += stats.expected + stats.flaky
  totals.failed += stats.unexpected
  totals.skipped += stats.skipped
} else {
  console.log('Playwright wrote no report')
  totals.failed += 1
}

if (totals.failed > 0) exitCode = 1
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`)
process.exit(exitCode)
