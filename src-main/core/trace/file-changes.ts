import { z } from 'zod'

/**
 * What a `file.change` event says happened to one file (trace/event-data.ts): made, changed,
 * removed, or moved (`from_path` names where it was).
 */
export const fileChangeKinds = ['created', 'modified', 'deleted', 'renamed'] as const
export const fileChangeKindSchema = z.enum(fileChangeKinds)
export type FileChangeKind = z.infer<typeof fileChangeKindSchema>

/** Files larger than this are recorded without their content (the 1 MiB). */
export const fileContentCapBytes = 1024 * 1024
