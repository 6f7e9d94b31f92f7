import { useState } from 'react'

/** Preformatted text cut to a few hundred characters until the user asks for all of it. */
export function LongText({ text, limit = 600, className = '' }: { text: string; limit?: number; className?: string }) {
  const [expanded, setExpanded] = useState(false)
  if (!text) return null
  const long = text.length > limit
  return (
    <div className={`long-text ${className}`}>
      <pre>{expanded || !long ? text : `${text.slice(0, limit)}…`}</pre>
      {long && (
        <button className="link-button" onClick={() => setExpanded(!expanded)}>
          {expanded ? 'show less' : `show all (${text.length.toLocaleString()} chars)`}
        </button>
      )}
    </div>
  )
}

export const asText = (value: unknown): string => {
  if (value === undefined || value === null) return ''
  if (typeof value === 'string') return value
  return JSON.stringify(value, null, 2)
}
