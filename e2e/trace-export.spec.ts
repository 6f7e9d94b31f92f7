import { expect, test } from '@playwright/test'
import { startOtlpReceiver, type OtlpReceiver } from '../src-main/core/otlp/testing/otlp-receiver'
import { ArborPage } from './page-models/arbor-page'
import { startArborServer, type ArborServer } from './support/arbor-server'

/**
 * Settings ▸ Trace export in the real UI, served by the real `arbor serve`: the user sets an
 * endpoint and a header, runs the demo, and a real OTLP/HTTP receiver gets the job's spans with
 * that header. The header's value never reaches the page again.
 */
const secret = 'Basic ZTJlLXB1YmxpYzplMmUtc2VjcmV0LWtleQ=='
let server: ArborServer
let receiver: OtlpReceiver

test.beforeEach(async () => {
  receiver = await startOtlpReceiver()
  server = await startArborServer()
})
test.afterEach(async () => {
  await server.stop()
  await receiver.close()
})

test('a job run in the app is sent to the collector set in settings, with a write-only header', async ({ page }) => {
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await page.getByTestId('open-settings').click()
  const section = page.getByTestId('trace-export')
  await section.scrollIntoViewIfNeeded()
  await expect(section.getByTestId('trace-export-status')).toHaveText('Off')
  await section.getByTestId('trace-export-endpoint').fill(receiver.url)
  await section.locator('label', { hasText: 'Send finished jobs' }).click()
  await section.getByTestId('trace-export-add-header').click()
  await section.getByTestId('trace-export-header-name-0').fill('Authorization')
  await section.getByTestId('trace-export-header-value-0').fill(secret)
  await section.getByTestId('trace-export-save').click()
  await expect(section.getByTestId('trace-export-outcome')).toHaveText('Saved')
  await expect(section.getByTestId('trace-export-status')).toHaveText('On: every finished job is sent')
  await expect(section).toContainText(`Spans go to ${receiver.url}/v1/traces`)
  // Saved: the row shows the name only, the value field is empty again.
  await expect(section.getByTestId('trace-export-header-value-0')).toHaveValue('')
  await expect(section.getByTestId('trace-export-header-name-0')).toHaveCount(0)
  await section.screenshot({ path: ArborPage.screenshotFile('trace-export-saved') })

  // A refused save says why and changes nothing.
  await section.getByTestId('trace-export-endpoint').fill('localhost:4318')
  await section.getByTestId('trace-export-save').click()
  await expect(section.getByTestId('trace-export-outcome')).toContainText('http://')
  await page.getByTestId('settings-close').click()

  await arbor.runDemo()
  await arbor.waitForJobEnd()
  await expect.poll(() => receiver.requests.length, { timeout: 20_000 }).toBe(1)
  const [request] = receiver.requests
  expect(request!.headers.authorization).toBe(secret)
  expect(request!.headers['content-type']).toBe('application/x-protobuf')
  const spans = receiver.spans()
  expect(spans.filter((span) => span.name === 'invoke_workflow arbor')).toHaveLength(1)
  expect(spans.filter((span) => span.name.startsWith('invoke_agent'))).toHaveLength(5)

  // Settings again, after a reload: the newest send, the header's name, never its value.
  await page.reload()
  await expect(page.getByTestId('job-list')).toBeVisible()
  await page.getByTestId('open-settings').click()
  await section.scrollIntoViewIfNeeded()
  await expect(section.getByTestId('trace-export-last-send')).toContainText(`${spans.length} spans sent to ${receiver.url}/v1/traces`)
  await expect(section.getByTestId('trace-export-endpoint')).toHaveValue(receiver.url)
  await expect(section).toContainText('Authorization')
  expect(await page.content()).not.toContain(secret)
  await section.screenshot({ path: ArborPage.screenshotFile('trace-export-sent') })
})

test('a refused send shows in settings and the job still completes', async ({ page }) => {
  receiver.respondWith(401)
  const arbor = new ArborPage(page)
  await arbor.open(server.url)
  await page.getByTestId('open-settings').click()
  const section = page.getByTestId('trace-export')
  await section.getByTestId('trace-export-endpoint').fill(`${receiver.url}/v1/traces`)
  await section.locator('label', { hasText: 'Send finished jobs' }).click()
  await section.getByTestId('trace-export-save').click()
  await expect(section.getByTestId('trace-export-outcome')).toHaveText('Saved')
  await page.getByTestId('settings-close').click()
  await arbor.runDemo()
  await arbor.waitForJobEnd('completed')
  await expect.poll(() => receiver.requests.length, { timeout: 20_000 }).toBe(1)
  await page.getByTestId('open-settings').click()
  await section.scrollIntoViewIfNeeded()
  await expect(section.getByTestId('trace-export-last-send')).toContainText(
    `trace not sent: OTLP export to ${receiver.url}/v1/traces failed: HTTP 401`,
  )
  await section.screenshot({ path: ArborPage.screenshotFile('trace-export-refused') })
  expect(server.output()).toContain('trace not sent')
})
