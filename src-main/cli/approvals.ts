import { createInterface } from 'node:readline/promises'
import type { ApiNotification } from '../core/api/contract'
import type { Supervisor } from '../core/supervisor/supervisor'
import { printable } from './printable'

export interface PromptStreams {
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
}

/**
 * Risky actions waiting for the user (the root's; a subagent's in `ask` mode): asked on the
 * terminal when it is interactive, one at a time, naming the agent; denied (`by: auto_deny`) when
 * it is not (product.md §8). Requests the job's mode decided at once are not pending and are
 * skipped. The command and reason come from the model, so they are printed through `printable`:
 * a hostile model cannot repaint the prompt or hide part of the command.
 */
export function answerApprovals(
  supervisor: Supervisor,
  interactive: boolean,
  streams: PromptStreams = { input: process.stdin, output: process.stdout },
): (notification: ApiNotification) => void {
  let queue = Promise.resolve()
  return ({ events }) => {
    for (const event of events) {
      if (event.type !== 'approval.request') continue
      const { approval_id: approvalId } = event.data
      if (!isPending(supervisor, event.job_id, approvalId)) continue
      if (!interactive) {
        supervisor.decideApproval(approvalId, 'denied', 'auto_deny')
        continue
      }
      queue = queue.then(async () => {
        const prompt = createInterface(streams)
        const command = printable(event.data.command).replaceAll('\n', '\n    ')
        const reason = printable(event.data.reason).replaceAll('\n', ' ')
        const who = event.depth === 0 ? 'The root agent' : `The subagent ${printable((event.data.path ?? []).join(' › ') || 'agent')}`
        // Decided meanwhile (the agent ended, the mode changed): nothing left to ask.
        if (!isPending(supervisor, event.job_id, approvalId)) return prompt.close()
        const answer = await prompt.question(`\n${who} wants to run: ${command}\n(${reason}) Approve once? [y/N] `)
        prompt.close()
        supervisor.decideApproval(approvalId, /^y(es)?$/i.test(answer.trim()) ? 'approved' : 'denied')
      })
    }
  }
}

const isPending = (supervisor: Supervisor, jobId: string, approvalId: string): boolean =>
  supervisor.pendingApprovals(jobId).some((pending) => pending.approval_id === approvalId)
