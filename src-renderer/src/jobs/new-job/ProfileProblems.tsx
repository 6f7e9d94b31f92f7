import type { ProfileList } from '@core/api/contract'

/** The profile files that did not load (errors) or loaded with a warning, under the profile select. */
export function ProfileProblems(props: { profiles: ProfileList }) {
  const { errors, warnings } = props.profiles
  return (
    <>
      {errors.length > 0 && (
        <div className="callout warn profile-errors" data-testid="profile-errors">
          <div className="callout__title">
            {errors.length === 1 ? 'A profile file did not load' : `${errors.length} profile files did not load`}
          </div>
          <ul>
            {errors.map((problem, index) => (
              <li key={`${problem.file}-${problem.field}-${index}`}>
                <code>{problem.file}</code> <span className="faint">·</span> <code>{problem.field}</code>: {problem.message}
              </li>
            ))}
          </ul>
        </div>
      )}
      {warnings.length > 0 && (
        <ul className="form-hint profile-warnings">
          {warnings.map((warning, index) => (
            <li key={`${warning.file}-${index}`}>
              <code>{warning.file}</code>: {warning.message}
            </li>
          ))}
        </ul>
      )}
    </>
  )
}
