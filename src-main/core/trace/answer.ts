import type { TraceEvent } from './events'

/**
 * An agent's result (its agent.end `result`) as the user reads it: a string as it is, a
 * structured result as indented JSON, null when there is none.
 */
export function answerText(result: unknown): string | null {
  if (result === null || result === undefined || result === '') return null
  return typeof result === 'string' ? result : JSON.stringify(result, null, 2)
}

/** The job's answer in a live batch: the root agent's (no parent) agent.end, by job id. */
export function rootAnswersIn(events: readonly TraceEvent[]): Record<string, string> {
  const answers: Record<string, string> = {}
  for (const event of events) {
    if (event.type !== 'agent.end' || event.parent_id !== null) continue
    const answer = answerText(event.data.result)
    if (answer !== null) answers[event.job_id] = answer
  }
  return answers
}
