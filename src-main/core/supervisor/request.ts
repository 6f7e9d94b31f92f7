import os from 'node:os'
import type { TaskRequest } from '../protocol/messages'

/**
 * The child's first user message (product.md §3): the task, the structured context as JSON,
 * then a short workspace block. It is all the child knows of its parent.
 */
export function renderFirstMessage(task: string, context: Record<string, unknown> | undefined, projectDir: string, now: Date): string {
  const parts = [task]
  if (context && Object.keys(context).length > 0) parts.push(`Structured context:\n${JSON.stringify(context, null, 2)}`)
  parts.push(
    [
      'Workspace:',
      `- project root: ${projectDir}`,
      `- os: ${os.platform()} ${os.release()}`,
      `- date: ${now.toISOString().slice(0, 10)}`,
    ].join('\n'),
  )
  return parts.join('\n\n')
}

export const childTaskText = (request: TaskRequest): string => `${request.description}\n\n${request.prompt}`
