import { useState, type ReactNode } from 'react'
import { maxSteerMessage } from '@core/api/job-limits'

export interface SendBoxProps {
  /** `steer` or `follow-up`: the test ids of the box, its input, its status and its button. */
  kind: string
  placeholder: string
  /** The button's text. */
  action: string
  /** What the status line says while `pending` sends are under way (default: how to send). */
  pendingText(pending: number): string
  /** Sends one message; the box is cleared at once, and kept when this resolves false. */
  send(text: string): Promise<boolean | void>
  /** More buttons, before the send button. */
  extra?: ReactNode
}

/**
 * A text box under an agent's trace that sends what is typed (Ctrl/Cmd-Enter or its button): a
 * message to a running agent, or a follow-up to one that ended.
 */
export function SendBox({ kind, placeholder, action, pendingText, send, extra }: SendBoxProps) {
  const [text, setText] = useState('')
  const [pending, setPending] = useState(0)
  const submit = () => {
    const message = text.trim()
    if (!message) return
    setText('')
    setPending((count) => count + 1)
    void send(message)
      .then((sent) => {
        if (sent === false) setText((now) => now || message)
      })
      .finally(() => setPending((count) => count - 1))
  }
  return (
    <form
      className="inspector__steer"
      data-testid={`${kind}-box`}
      onSubmit={(event) => {
        event.preventDefault()
        submit()
      }}
    >
      <textarea
        className="input"
        data-testid={`${kind}-input`}
        rows={2}
        maxLength={maxSteerMessage}
        placeholder={placeholder}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault()
            submit()
          }
        }}
      />
      <div className="inspector__steer-actions">
        <span className="muted small" data-testid={`${kind}-pending`}>
          {pending > 0 ? pendingText(pending) : 'Ctrl/Cmd-Enter sends'}
        </span>
        {extra}
        <button className="button" type="submit" data-testid={`${kind}-send`} disabled={!text.trim()}>
          {action}
        </button>
      </div>
    </form>
  )
}
