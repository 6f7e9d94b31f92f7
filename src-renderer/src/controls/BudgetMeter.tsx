/** A small labelled meter of usage against a budget; amber from 80 %, red at 100 %. */
export function BudgetMeter(props: { label: string; used: number; budget: number; format: (value: number) => string; testId?: string }) {
  const share = props.budget > 0 ? props.used / props.budget : 0
  const level = share >= 1 ? 'over' : share >= 0.8 ? 'warn' : 'ok'
  return (
    <span
      className={`budget-meter ${level}`}
      data-testid={props.testId}
      data-used={props.used}
      data-budget={props.budget}
      data-level={level}
      title={`${Math.round(share * 100)}% of the job's ${props.label} budget`}
    >
      <span className="budget-meter__label">
        {props.label} {props.format(props.used)} / {props.format(props.budget)}
      </span>
      <span className="budget-meter__bar">
        <span className="budget-meter__fill" style={{ width: `${Math.min(100, share * 100)}%` }} />
      </span>
    </span>
  )
}
