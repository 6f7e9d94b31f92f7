#!/usr/bin/env node
// Runs every test runner (vitest, then Playwright) and ends with one plain line summing them:
// "N passed, N failed, N skipped" (counted by test-counts.js). Exits non-zero if any runner failed,
// and then the line never says "0 failed".
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, existsSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { countPlaywright, countRun, countVitest, summaryLine } from './test-counts.js'

const reports = mkdtempSync(path.join(os.tmpdir(), 'arbor-test-reports-'))
const runs = []

function run(name, command, args, env = {}) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  return result.status
}

function readReport(file, runner) {
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'))
  console.log(`${runner} wrote no report`)
  return undefined
}

const vitestReport = path.join(reports, 'vitest.json')
const vitestStatus = run('unit and integration tests (vitest)', 'npx', [
  'vitest',
  'run',
  '--reporter=default',
  '--reporter=json',
  `--outputFile.json=${vitestReport}`,
])
runs.push(countRun(vitestStatus, readReport(vitestReport, 'vitest'), countVitest))

const playwrightReport = path.join(reports, 'playwright.json')
const playwrightStatus = run('end-to-end tests (Playwright)', 'npx', ['playwright', 'test', '--reporter=list,json'], {
  PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
})
runs.push(countRun(playwrightStatus, readReport(playwrightReport, 'Playwright'), countPlaywright))

const failed = runs.some((counts) => counts.failed > 0)
console.log(`\n${summaryLine(runs)}`)
process.exit(failed ? 1 : 0)
