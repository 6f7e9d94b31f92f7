import { useState } from 'react'
import { useArbor } from '../store'

/** Lines of the answer shown before "Show all". */
export const answerPreviewLines = 3

/**
 * What the selected job's root agent answered, under the toolbar: what the user came for. The
 * first lines, and the whole of it on "Show all"; nothing while the root runs.
 */
export function JobAnswer() {
  const answer = useArbor((state) => (state.selectedJobId ? state.answers[state.selectedJobId] : undefined))
  const jobId = useArbor((state) => state.selectedJobId)
  const [expandedFor, setExpandedFor] = useState<string | null>(null)
  if (answer === undefined) return null
  const lines = answer.split('\n')
  const long = lines.length > answerPreviewLines
  const expanded = expandedFor === jobId
  return (
    <section
      className="job-answer"
      data-testid="job-answer"
      data-expanded={expanded ? 'true' : undefined}
      aria-label="The root agent's answer"
    >
      <span className="job-answer__label">Answer</span>
      <pre className="job-answer__text" data-testid="job-answer-text">
        {expanded || !long ? answer : `${lines.slice(0, answerPreviewLines).join('\n')}…`}
      </pre>
      {long && (
        <button
          type="button"
          className="link-button job-answer__toggle"
          data-testid="job-answer-toggle"
          aria-expanded={expanded}
          onClick={() => setExpandedFor(expanded ? null : jobId)}
        >
          {expanded ? 'Show less' : `Show all ${lines.length} lines`}
        </button>
      )}
    </section>
  )
}
