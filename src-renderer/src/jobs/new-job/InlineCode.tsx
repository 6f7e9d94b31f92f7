/** Text with `backtick` spans shown as code (profile descriptions are Markdown-ish). */
export function InlineCode(props: { text: string }) {
  return (
    <>
      {props.text
        .split(/(`[^`]+`)/)
        .map((part, index) =>
          part.length > 2 && part.startsWith('`') && part.endsWith('`') ? <code key={index}>{part.slice(1, -1)}</code> : part,
        )}
    </>
  )
}
