import type { AttentionSlice, SliceCreator } from './types'

/** Filled by loadJobs (listJobs().waiting) and kept live by applyEventBatch (applyAttentionEvents). */
export const createAttentionSlice: SliceCreator<AttentionSlice> = () => ({
  waiting: {},
  budgetWarnings: {},
})
