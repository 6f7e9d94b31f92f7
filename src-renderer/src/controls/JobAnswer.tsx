import { useState } from 'react'
import { maxSteerMessage } from '@core/api/job-limits'
import { useArbor } from '../store'

/** Lines of the answer shown before "Show all". */
export const answerPreviewLines = 3

/**
 * What the selected job's root agent answered, under the toolbar: what the user came for. The
 * first lines, and the whole of it on "Show all"; nothing while the root first runs. Under it,
 * once the job has ended, a box to follow up: the root goes on with its whole conversation; and
 * for a job that was interrupted (Arbor quit or crashed while it ran), "Resume job".
 */
export function JobAnswer() {
  const answer = useArbor((state) => (state.selectedJobId ? state.answers[state.selectedJobId] : undefined))
  const jobId = useArbor((state) => state.selectedJobId)
  const job = useArbor((state) => (state.selectedJobId ? state.jobs[state.selectedJobId] : undefined))
  const [expandedFor, setExpandedFor] = useState<string | null>(null)
  const canFollowUp = job !== undefined && !job.imported
  if (answer === undefined && !(canFollowUp && job.status !== 'running')) return null
  const lines = (answer ?? '').split('\n')
  const long = lines.length > answerPreviewLines
  const expanded = expandedFor === jobId
  return (
    <section
      className="job-answer"
      data-testid="job-answer"
      data-expanded={expanded ? 'true' : undefined}
      aria-label="The root agent's answer"
    >
      <div className="job-answer__row">
        <span className="job-answer__label">Answer</span>
        <pre className="job-answer__text" data-testid="job-answer-text">
          {answer === undefined ? (
            <span className="muted">
              {job?.status === 'interrupted' ? 'No answer yet: the job was interrupted.' : 'No answer: the job ended without one.'}
            </span>
          ) : null}
          {answer !== undefined && (expanded || !long ? answer : `${lines.slice(0, answerPreviewLines).join('\n')}…`)}
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
      </div>
      {canFollowUp && job.status === 'interrupted' && <ResumeBar key={`resume-${job.id}`} jobId={job.id} />}
      {canFollowUp && <FollowUpBox key={job.id} jobId={job.id} running={job.status === 'running'} endReason={job.end_reason ?? null} />}
    </section>
  )
}

/**
 * An interrupted job: Arbor stopped while it ran. "Resume job" lets the agents that were running
 * go on from where they were (their held and queued spawns wait again); the ones that had
 * finished are not run again.
 */
function ResumeBar({ jobId }: { jobId: string }) {
  const [sending, setSending] = useState(false)
  return (
    <div className="job-answer__resume" data-testid="resume-bar" role="status">
      <span>
        Arbor stopped while this job ran. Resume it: the agents that were running go on from where they were; finished ones are not run
        again.
      </span>
      <button
        type="button"
        className="button primary"
        data-testid="resume-job"
        disabled={sending}
        onClick={() => {
          setSending(true)
          void useArbor
            .getState()
            .resumeJob(jobId)
            .finally(() => setSending(false))
        }}
      >
        {sending ? 'Resuming…' : 'Resume job'}
      </button>
    </div>
  )
}

/**
 * A follow-up to a job that ended: the root resumes with its whole history plus this message, in
 * the same job and tree. A job stopped by its budget can go on only with a higher one, so the
 * box offers that.
 */
function FollowUpBox({ jobId, running, endReason }: { jobId: string; running: boolean; endReason: string | null }) {
  const [text, setText] = useState('')
  const [sending, setSending] = useState(false)
  const [tokens, setTokens] = useState('')
  const [cost, setCost] = useState('')
  const budgetSpent = endReason === 'token_budget' && !running
  const send = () => {
    const message = text.trim()
    if (!message || running || sending) return
    const budgets = {
      ...(tokens.trim() ? { job_token_budget: Number(tokens) } : {}),
      ...(cost.trim() ? { job_cost_budget: Number(cost) } : {}),
    }
    setSending(true)
    void useArbor
      .getState()
      .followUp(jobId, message, { budgets })
      .then((sent) => {
        if (sent) setText('')
      })
      .finally(() => setSending(false))
  }
  return (
    <form
      className="job-answer__follow-up"
      data-testid="follow-up"
      onSubmit={(event) => {
        event.preventDefault()
        send()
      }}
    >
      <textarea
        className="input"
        data-testid="follow-up-input"
        rows={1}
        maxLength={maxSteerMessage}
        aria-label="Follow up"
        placeholder={
          running ? 'The job is running: message an agent from its inspector' : 'Follow up: the root goes on with everything it knows'
        }
        disabled={running}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault()
            send()
          }
        }}
      />
      {budgetSpent && (
        <span className="job-answer__budgets" data-testid="follow-up-budgets">
          <label>
            Token budget{' '}
            <input
              className="input"
              inputMode="numeric"
              value={tokens}
              onChange={(event) => setTokens(event.target.value)}
              placeholder="raise to…"
            />
          </label>
          <label>
            Cost budget ${' '}
            <input
              className="input"
              inputMode="decimal"
              value={cost}
              onChange={(event) => setCost(event.target.value)}
              placeholder="raise to…"
            />
          </label>
        </span>
      )}
      <button className="button" type="submit" data-testid="follow-up-send" disabled={running || sending || !text.trim()}>
        {running ? 'Running…' : 'Continue'}
      </button>
    </form>
  )
}
