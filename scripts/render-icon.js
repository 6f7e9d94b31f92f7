#!/usr/bin/env node
// Renders resources/icon.svg to resources/icon.png (512×512, transparent corners) with headless
// Chromium: `node scripts/render-icon.js`. Needs Chromium at /usr/bin/chromium (Debian:
// `apt-get install -y chromium`) or at CHROMIUM_PATH.
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { chromium } from 'playwright-core'

const size = 512
const resources = path.resolve(import.meta.dirname, '../resources')
const svg = readFileSync(path.join(resources, 'icon.svg'), 'utf8')

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--no-first-run',
  ],
})
try {
  const page = await browser.newPage({ viewport: { width: size, height: size }, deviceScaleFactor: 1 })
  await page.setContent(
    `<!doctype html><html><body style="margin:0;background:transparent">` +
      svg.replace('<svg ', `<svg style="display:block;width:${size}px;height:${size}px" `) +
      `</body></html>`,
  )
  const out = path.join(resources, 'icon.png')
  await page.screenshot({ path: out, omitBackground: true, clip: { x: 0, y: 0, width: size, height: size } })
  console.log(`wrote ${path.relative(process.cwd(), out)} (${size}×${size})`)
} finally {
  await browser.close()
}
