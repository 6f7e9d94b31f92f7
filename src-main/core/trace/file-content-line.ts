import { z } from 'zod'

/**
 * A `file.content` line of a trace exported with its file contents (`arbor export
 * --with-file-contents`): the bytes of one version a later `file.change` names by hash, written
 * once, before the first event naming it. `withheld` instead of `base64`: the export left the
 * bytes out (`secret`: they hold a key Arbor knows, which never leaves in an export).
 */
export const fileContentLineSchema = z
  .strictObject({
    type: z.literal('file.content'),
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'SHA-256 (hex) of the bytes: the `hash_before` / `hash_after` of the events that name it' }),
    size: z.number().int().nonnegative().meta({ description: 'the number of bytes' }),
    base64: z.string().optional().meta({ description: 'the bytes, base64; absent when withheld' }),
    withheld: z.enum(['secret']).optional().meta({ description: '`secret`: the bytes hold a known key and were left out' }),
  })
  .meta({ id: 'file.content', description: 'The bytes of one file version, before the first event that names it' })
export type FileContentLine = z.infer<typeof fileContentLineSchema>
