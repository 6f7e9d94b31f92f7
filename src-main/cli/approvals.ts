import { createInterface } from 'node:readline/promises'
import type { ApiNotification } from '../core/api/contract'
import type { Supervisor } from '../core/supervisor/supervisor'

/**
 * The root agent's risky actions: asked on the terminal when it is interactive, denied
 * (`by: auto_deny`) when it is not (product.md §8). Subagents' are decided by the job's flag.
 */
export function answerRootApprovals(supervisor: Supervisor, interactive: boolean): (notification: ApiNotification) => void {
  let queue = Promise.resolve()
  return ({ events }) => {
    for (const event of events) {
      if (event.type !== 'approval.request' || event.depth !== 0) continue
      const approvalId = String(event.data.approval_id)
      if (!interactive) {
        supervisor.decideApproval(approvalId, 'denied', 'auto_deny')
        continue
      }
      queue = queue.then(async () => {
        const prompt = createInterface({ input: process.stdin, output: process.stdout })
        const answer = await prompt.question(`\nThe root agent wants to run: ${String(event.data.command)}\n(${String(event.data.reason)}) Approve once? [y/N] `)
        prompt.close()
        supervisor.decideApproval(approvalId, /^y(es)?$/i.test(answer.trim()) ? 'approved' : 'denied')
      })
    }
  }
}
