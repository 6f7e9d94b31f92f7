import { defineConfig } from '@playwright/test'
import { chromiumLaunchOptions } from './e2e/support/chromium'

// e2e against `arbor serve` in Debian's Chromium (Playwright's own browser download cannot
// run here), plus the Electron launch test that skips where no Electron binary exists.
export default defineConfig({
  testDir: 'e2e',
  outputDir: 'e2e/artifacts/test-results',
  timeout: 90_000,
  expect: { timeout: 20_000 },
  workers: 1,
  retries: 0,
  use: {
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
    launchOptions: chromiumLaunchOptions,
  },
})
