import { createInterface } from 'node:readline/promises'
import type { ApiNotification } from '../core/api/contract'
import type { Supervisor } from '../core/supervisor/supervisor'

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

// ESC sequences whole (CSI `ESC [ … final`, OSC and the other string sequences up to BEL or
// `ESC \`, two-character escapes), and their 8-bit C1 forms (CSI U+009B, OSC U+009D …).
const escapeSequences = new RegExp(
  [
    '(?:\\u001b\\[|\\u009b)[0-?]*[ -/]*[@-~]?',
    '(?:\\u001b[\\]PX^_]|[\\u0090\\u0098\\u009d-\\u009f])[^\\u0007\\u001b\\u009c]*(?:\\u0007|\\u001b\\\\|\\u009c)?',
    '\\u001b[ -/]*[0-~]?',
  ].join('|'),
  'g',
)

// What is left: C0 controls but tab and newline, DEL, C1 controls, and the bidi embeddings,
// overrides and isolates (U+202A–U+202E, U+2066–U+2069) with the marks U+200E, U+200F, U+061C.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controls = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g

/**
 * Text a model wrote, safe to print on a terminal: escape sequences and control characters are
 * removed (CR, BEL, backspace, ANSI colours and cursor moves, C1, bidi overrides), tabs become
 * spaces; newlines stay for the caller to lay out.
 */
export function printable(text: string): string {
  return text.replace(escapeSequences, '').replace(controls, '').replaceAll('\t', ' ')
}
