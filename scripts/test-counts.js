// How scripts/test-all.js counts a runner's report into "passed, failed, skipped": plain
// JavaScript, run by Node without a build step, and imported by its test.

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

/** The closing line: "N passed, N failed, N skipped", summed over the runners. */
export function summaryLine(runs) {
  const total = { passed: 0, failed: 0, skipped: 0 }
  for (const run of runs) for (const key of Object.keys(total)) total[key] += run[key]
  return `${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`
}
