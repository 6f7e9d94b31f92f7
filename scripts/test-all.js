#!/usr/bin/env node
// Runs every test runner (vitest, then Playwright) and ends with one plain line summing them:
// "N passed, N failed, N skipped" (counted by test-counts.js). Exits non-zero if any runner failed,
// and then the line never says "0 failed".
//
// For a run on several Node versions (.ci/run): `--vitest-only` runs vitest alone, `--save FILE`
// keeps this run's counts in FILE, and ARBOR_TEST_CARRY=FILE adds a saved run's counts to this
// one's closing line (and its failures to the exit code). What failed is named above that line.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, existsSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { countPlaywright, countRun, countVitest, playwrightFailures, summaryLine, vitestFailures } from './test-counts.js'

const options = process.argv.slice(2)
const vitestOnly = options.includes('--vitest-only')
const saveTo = options.includes('--save') ? options[options.indexOf('--save') + 1] : undefined
const reports = mkdtempSync(path.join(os.tmpdir(), 'arbor-test-reports-'))
const carried = readCarried(process.env.ARBOR_TEST_CARRY)
const runs = []
const node = `Node ${process.version}`

function run(name, command, args, env = {}) {
  console.log(`\n=== ${name}: ${command} ${args.join(' ')}`)
  const result = spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } })
  return result.status
}

/** An earlier run's saved counts; one that saved none (it stopped before its runners ended) counts as one failure. */
function readCarried(file) {
  if (!file) return []
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'))
  return [{ name: `the run that should have saved ${file}`, passed: 0, failed: 1, skipped: 0 }]
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
const vitestResult = readReport(vitestReport, 'vitest')
runs.push({
  name: `vitest on ${node}`,
  ...countRun(vitestStatus, vitestResult, countVitest),
  failures: vitestResult === undefined ? [] : vitestFailures(vitestResult),
})

if (!vitestOnly) {
  const playwrightReport = path.join(reports, 'playwright.json')
  const playwrightStatus = run('end-to-end tests (Playwright)', 'npx', ['playwright', 'test', '--reporter=list,json'], {
    PLAYWRIGHT_JSON_OUTPUT_NAME: playwrightReport,
  })
  const playwrightResult = readReport(playwrightReport, 'Playwright')
  runs.push({
    name: `Playwright on ${node}`,
    ...countRun(playwrightStatus, playwrightResult, countPlaywright),
    failures: playwrightResult === undefined ? [] : playwrightFailures(playwrightResult),
  })
}

if (saveTo) writeFileSync(saveTo, JSON.stringify(runs))
const all = [...carried, ...runs]
const failed = all.some((counts) => counts.failed > 0)
console.log('')
for (const counts of all) {
  console.log(`${counts.name}: ${summaryLine([counts])}`)
  for (const failure of counts.failures ?? []) console.log(`  failed: ${failure}`)
}
console.log(summaryLine(all))
process.exit(failed ? 1 : 0)
