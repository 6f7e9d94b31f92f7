// How scripts/test-all.js counts a runner's report into "passed, failed, skipped": plain
// JavaScript, run by Node without a build step, and imported by its test.
import path from 'node:path'
import { stripVTControlCharacters } from 'node:util'

/**
 * A vitest JSON report. A test file that fails outside its tests (it does not load, or a hook
 * throws) has no failed test in it, only a failed file: it counts as one failure, so a suite that
 * never ran cannot leave the line at "0 failed".
 */
export function countVitest(report) {
  const files = report.testResults ?? []
  const failedFiles = files.filter(
    (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((test) => test.status === 'failed'),
  ).length
  return {
    passed: report.numPassedTests ?? 0,
    failed: (report.numFailedTests ?? 0) + failedFiles,
    skipped: (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0),
  }
}

/**
 * A Playwright JSON report. Each error outside a test (a spec file that does not load, a global
 * setup that throws) counts as one failure beside the unexpected tests.
 */
export function countPlaywright(report) {
  const stats = report.stats ?? {}
  return {
    passed: (stats.expected ?? 0) + (stats.flaky ?? 0),
    failed: (stats.unexpected ?? 0) + (report.errors ?? []).length,
    skipped: stats.skipped ?? 0,
  }
}

/**
 * One runner's counts from its exit status and its report (undefined when it wrote none). A runner
 * that failed without a failure in its report (no report, an unhandled error between tests)
 * counts one, so the summary line and the exit code never disagree.
 */
export function countRun(status, report, count) {
  const counts = report === undefined ? { passed: 0, failed: 0, skipped: 0 } : count(report)
  if (status !== 0 && counts.failed === 0) counts.failed = 1
  return counts
}

/** The first line of a failure message, without the terminal's colour codes. */
function firstLine(text) {
  return (
    stripVTControlCharacters(text ?? '')
      .split('\n')
      .find((line) => line.trim() !== '')
      ?.trim() ?? ''
  )
}

/**
 * The names of what failed in a vitest report, each with the first line of its error, so a CI log
 * cut to its tail still says which test failed: "file › test: message".
 */
export function vitestFailures(report, root = process.cwd()) {
  const failures = []
  for (const file of report.testResults ?? []) {
    const name = file.name === undefined ? 'a test file' : path.relative(root, file.name)
    const tests = (file.assertionResults ?? []).filter((test) => test.status === 'failed')
    for (const test of tests) failures.push(`${name} › ${test.fullName ?? test.title}: ${firstLine(test.failureMessages?.[0])}`)
    if (file.status === 'failed' && tests.length === 0) failures.push(`${name}: ${firstLine(file.message)}`)
  }
  return failures
}

/** The names of what failed in a Playwright report: each unexpected test and each error outside the tests. */
export function playwrightFailures(report) {
  const failures = []
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== 'unexpected') continue
        const error = test.results?.at(-1)?.error?.message
        failures.push(`${[...titles, spec.title].join(' › ')}: ${firstLine(error)}`)
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title])
  }
  for (const suite of report.suites ?? []) walk(suite, [suite.title])
  for (const error of report.errors ?? []) failures.push(`outside the tests: ${firstLine(error?.message)}`)
  return failures
}

/** The closing line: "N passed, N failed, N skipped", summed over the runners. */
export function summaryLine(runs) {
  const total = { passed: 0, failed: 0, skipped: 0 }
  for (const run of runs) for (const key of Object.keys(total)) total[key] += run[key]
  return `${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`
}
