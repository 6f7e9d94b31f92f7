/**
 * Debian's Chromium, as every browser test and the graph bench launch it: Playwright's own
 * browser download cannot run here, and without the background-networking flags Chromium keeps
 * trying to reach hosts this machine cannot reach. CHROMIUM_PATH points elsewhere.
 */
export const chromiumLaunchOptions = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
}
