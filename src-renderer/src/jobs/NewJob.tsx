import { useState, type FormEvent } from 'react'
import { useArbor } from '../store'

/** Start a job: the new-job dialog, the built-in demo, or a scripted job with the user's task. */
export function NewJob() {
  const [task, setTask] = useState('')
  const [busy, setBusy] = useState(false)
  const run = async (kind: 'demo' | 'scripted') => {
    setBusy(true)
    try {
      await useArbor.getState().startJob(kind, kind === 'scripted' ? task.trim() : undefined)
      if (kind === 'scripted') setTask('')
    } finally {
      setBusy(false)
    }
  }
  const submit = (event: FormEvent) => {
    event.preventDefault()
    if (task.trim()) void run('scripted')
  }
  return (
    <form className="new-job" onSubmit={submit}>
      <div className="section-title">New job</div>
      <button
        type="button"
        className="button primary wide"
        data-testid="new-job"
        title="Choose the task, model and budgets of a new job"
        onClick={() => useArbor.getState().openNewJob()}
      >
        + New job…
      </button>
      <button type="button" className="button wide" data-testid="run-demo" disabled={busy} onClick={() => void run('demo')}>
        ▶ Run demo
      </button>
      <textarea
        className="input"
        data-testid="task-input"
        placeholder="Task for a scripted job…"
        rows={3}
        value={task}
        onChange={(event) => setTask(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) submit(event)
        }}
      />
      <button type="submit" className="button wide" data-testid="start-scripted" disabled={busy || !task.trim()}>
        Start scripted job
      </button>
    </form>
  )
}
