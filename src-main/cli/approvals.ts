import { createInterface } from 'node:readline/promises'
import type { ApiNotification } from '../core/api/contract'
import type { Supervisor } from '../core/supervisor/supervisor'
import { printable } from './printable'

export interface PromptStreams {
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
}

/**
 * The root agent's risky actions: asked on the terminal when it is interactive, denied
 * (`by: auto_deny`) when it is not (product.md §8). Subagents' are decided by the job's flag.
 * The command and reason come from the model, so they are printed through `printable`: a
 * hostile model cannot repaint the prompt or hide part of the command.
 */
export function answerRootApprovals(
  supervisor: Supervisor,
  interactive: boolean,
  streams: PromptStreams = { input: process.stdin, output: process.stdout },
): (notification: ApiNotification) => void {
  let queue = Promise.resolve()
  return ({ events }) => {
    for (const event of events) {
      if (event.type !== 'approval.request' || event.depth !== 0) continue
      const { approval_id: approvalId } = event.data
      if (!interactive) {
        supervisor.decideApproval(approvalId, 'denied', 'auto_deny')
        continue
      }
      queue = queue.then(async () => {
        const prompt = createInterface(streams)
        const command = printable(event.data.command).replaceAll('\n', '\n    ')
        const reason = printable(event.data.reason).replaceAll('\n', ' ')
        const answer = await prompt.question(`\nThe root agent wants to run: ${command}\n(${reason}) Approve once? [y/N] `)
        prompt.close()
        supervisor.decideApproval(approvalId, /^y(es)?$/i.test(answer.trim()) ? 'approved' : 'denied')
      })
    }
  }
}
