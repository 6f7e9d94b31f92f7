// Types for test-counts.js (plain JavaScript, run by Node without a build step).

export interface Counts {
  passed: number
  failed: number
  skipped: number
}

/** The fields of vitest's JSON report the count reads. */
export interface VitestReport {
  numPassedTests?: number
  numFailedTests?: number
  numPendingTests?: number
  numTodoTests?: number
  numFailedTestSuites?: number
  testResults?: Array<{ name?: string; status: string; message?: string; assertionResults?: Array<{ status: string }> }>
}

/** The fields of Playwright's JSON report the count reads. */
export interface PlaywrightReport {
  stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number }
  errors?: unknown[]
}

export function countVitest(report: VitestReport): Counts
export function countPlaywright(report: PlaywrightReport): Counts
export function countRun<R>(status: number | null, report: R | undefined, count: (report: R) => Counts): Counts
export function summaryLine(runs: readonly Counts[]): string
