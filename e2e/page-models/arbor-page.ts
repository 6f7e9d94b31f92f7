import { expect, type Locator, type Page } from '@playwright/test'
import path from 'node:path'

export const screenshotDir = path.resolve(import.meta.dirname, '../artifacts/screenshots')

/** The Arbor UI as a user sees it: job list, graph, toolbar, inspector dock. */
export class ArborPage {
  constructor(readonly page: Page) {}

  async open(url: string): Promise<void> {
    await this.page.goto(url)
    await expect(this.page.getByTestId('job-list')).toBeVisible()
  }

  async runDemo(): Promise<void> {
    await this.page.getByTestId('run-demo').click()
    await expect(this.root).toBeVisible()
  }

  /**
   * Fills the new-job form for an agent job on an OpenAI-compatible server (no key: it is local)
   * and leaves it open, for a test to set more fields, look at it, then press Start.
   */
  async fillAgentJob(options: { task: string; baseUrl: string; model?: string }): Promise<Locator> {
    await this.page.getByTestId('new-job').click()
    const dialog = this.page.getByTestId('new-job-dialog')
    await dialog.getByTestId('job-field-task').fill(options.task)
    await dialog.getByTestId('job-field-provider').selectOption('openai_compatible')
    await dialog.getByTestId('job-field-base_url').fill(options.baseUrl)
    await dialog.getByTestId('job-field-model').fill(options.model ?? 'local-model')
    return dialog
  }

  async startFilledJob(dialog: Locator): Promise<void> {
    await dialog.getByTestId('start-job').click()
    await expect(dialog).toBeHidden()
  }

  get nodes(): Locator {
    return this.page.getByTestId('agent-node')
  }

  get root(): Locator {
    return this.page.locator('[data-testid="agent-node"][data-depth="0"]')
  }

  get children(): Locator {
    return this.page.locator('[data-testid="agent-node"][data-depth="1"]')
  }

  nodesWithStatus(status: string): Locator {
    return this.page.locator(`[data-testid="agent-node"][data-status="${status}"]`)
  }

  /**
   * Drags a node onto the inspector dock as a user does: once the graph holds still. Each open
   * inspector narrows the graph pane, and a small tree then lays out anew for it (its leaves wrap
   * into rows) and the view refits in a short animation; a drag begun meanwhile starts on a node
   * that is moving away.
   */
  async dragToDock(node: Locator): Promise<void> {
    await this.graphSettled(node)
    await node.dragTo(this.page.getByTestId('inspector-dock'))
  }

  /** Waits until `node` is drawn in the same place twice, 150 ms apart. */
  async graphSettled(node: Locator): Promise<void> {
    let last = ''
    await expect
      .poll(
        async () => {
          const box = JSON.stringify(await node.boundingBox())
          const still = box === last
          last = box
          return still
        },
        { intervals: [150] },
      )
      .toBe(true)
  }

  get pauseToggle(): Locator {
    return this.page.getByTestId('pause-toggle')
  }

  /** The toolbar's three-way control for subagents' risky commands; its `data-mode` is the job's mode. */
  get subagentApprovals(): Locator {
    return this.page.getByTestId('subagent-approvals')
  }

  async setSubagentApprovals(mode: 'deny' | 'ask' | 'approve'): Promise<void> {
    await this.page.getByTestId(`subagent-approvals-${mode}`).click()
    await expect(this.subagentApprovals).toHaveAttribute('data-mode', mode)
  }

  get jobStatus(): Locator {
    return this.page.getByTestId('job-status')
  }

  async waitForJobEnd(status = 'completed'): Promise<void> {
    await expect(this.page.locator(`[data-testid="job-item"][data-status="${status}"]`).first()).toBeVisible({ timeout: 60_000 })
  }

  /** Every agent node's identity as drawn: id → {parent, depth, status, profile}. */
  async graphTree(): Promise<Record<string, { parent: string | null; depth: number; status: string; profile: string }>> {
    return this.nodes.evaluateAll((elements) =>
      Object.fromEntries(
        elements.map((element) => [
          element.getAttribute('data-agent-id'),
          {
            parent: element.getAttribute('data-parent-id') || null,
            depth: Number(element.getAttribute('data-depth')),
            status: element.getAttribute('data-status') ?? '',
            profile: element.getAttribute('data-profile') ?? '',
          },
        ]),
      ),
    )
  }

  static screenshotFile(name: string): string {
    return path.join(screenshotDir, `${name}.png`)
  }

  async screenshot(name: string): Promise<void> {
    // Transitions finish first: a switch just flipped is drawn as it ends up, not half-way.
    await this.page.screenshot({ path: ArborPage.screenshotFile(name), animations: 'disabled' })
  }
}
