import { jobSettingsSchema } from './event-data'
import type { JobSettings } from './model'

const schemaOrder = Object.keys(jobSettingsSchema.shape)

/**
 * A job's settings with their keys in one order: the schema's (event-data.ts), then any key the
 * schema does not name (a later Arbor's), by name. Settings are built by spreading defaults and
 * overrides (jobSettingsOf), and an import gets them back from zod in the schema's order, or in
 * whatever order a file had them: a trace header written in this order is the same bytes after an
 * export, an import and another export.
 */
export function canonicalSettings(settings: JobSettings): JobSettings {
  const ordered: Record<string, unknown> = {}
  for (const key of schemaOrder) if (Object.hasOwn(settings, key)) ordered[key] = settings[key as keyof JobSettings]
  const others = Object.keys(settings)
    .filter((key) => !schemaOrder.includes(key))
    .sort()
  for (const key of others) ordered[key] = settings[key as keyof JobSettings]
  return ordered as JobSettings
}
