import { ArborError } from '../core/errors'

/** A mistake in the command line: exit code 2 with the usage text. */
export class UsageError extends ArborError<'usage'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.UsageError')
  override name = 'UsageError'

  constructor(message: string) {
    super('usage', message)
  }
}

/** A job the CLI will not start: exit 2 with the reason, without the usage text (the command line itself was fine). */
export class JobRefused extends ArborError<'job_refused'> {
  static override readonly marker: symbol = Symbol.for('arbor.error.JobRefused')
  override name = 'JobRefused'

  constructor(message: string) {
    super('job_refused', message)
  }
}

export function intOption(value: string | undefined, name: string, min = 0): number | undefined {
  if (value === undefined) return undefined
  const parsed = Number(value)
  if (!Number.isInteger(parsed) || parsed < min) throw new UsageError(`--${name} must be an integer ≥ ${min}, got "${value}"`)
  return parsed
}

export function numberOption(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined
  const parsed = Number(value)
  if (!Number.isFinite(parsed) || parsed <= 0) throw new UsageError(`--${name} must be a positive number, got "${value}"`)
  return parsed
}
