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
  testResults?: Array<{
    name?: string
    status: string
    message?: string
    assertionResults?: Array<{ status: string; title?: string; fullName?: string; failureMessages?: string[] }>
  }>
}

/** The fields of Playwright's JSON report the count reads. */
export interface PlaywrightReport {
  stats?: { expected?: number; unexpected?: number; flaky?: number; skipped?: number }
  errors?: unknown[]
  suites?: PlaywrightSuite[]
}

export interface PlaywrightSuite {
  title: string
  specs?: Array<{ title: string; tests?: Array<{ status: string; results?: Array<{ error?: { message?: string } }> }> }>
  suites?: PlaywrightSuite[]
}

export function countVitest(report: VitestReport): Counts
export function countPlaywright(report: PlaywrightReport): Counts
export function countRun<R>(status: number | null, report: R | undefined, count: (report: R) => Counts): Counts
export function vitestFailures(report: VitestReport, root?: string): string[]
export function playwrightFailures(report: PlaywrightReport): string[]
export function summaryLine(runs: readonly Counts[]): string
