import { splitFieldErrors } from '@core/api/methods'

/** An error's message for the user, without the field details a refused form carries (see errorFields). */
export const errorText = (error: unknown): string => splitFieldErrors(error instanceof Error ? error.message : String(error)).message

/** The field-by-field messages of a refused form (startJob), if the error carries them. */
export const errorFields = (error: unknown): Record<string, string> | null =>
  splitFieldErrors(error instanceof Error ? error.message : String(error)).fields
