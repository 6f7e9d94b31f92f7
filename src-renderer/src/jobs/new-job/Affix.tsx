import type { ReactNode } from 'react'

/** An input with a unit before or after it ("$", "tokens"). */
export function Affix(props: { prefix?: string; suffix?: string; children: ReactNode }) {
  return (
    <span className="affix">
      {props.prefix && <span className="affix__text affix__prefix">{props.prefix}</span>}
      {props.children}
      {props.suffix && <span className="affix__text affix__suffix">{props.suffix}</span>}
    </span>
  )
}
