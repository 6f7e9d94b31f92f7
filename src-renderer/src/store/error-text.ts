import { ApiFailure } from '@core/api/errors'

/** An error's message for the user. */
export const errorText = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/** The field-by-field messages of a refused form (startJob, the settings), if the error carries them. */
export const errorFields = (error: unknown): Record<string, string> | null => (ApiFailure.isInstance(error) ? (error.fields ?? null) : null)
