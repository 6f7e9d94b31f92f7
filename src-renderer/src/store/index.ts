import { create } from 'zustand'
import { createAttentionSlice } from './attention-slice'
import { createChangesSlice } from './changes-slice'
import { createCommandsSlice } from './commands-slice'
import { createControlsSlice } from './controls-slice'
import { createFormsSlice } from './forms-slice'
import { createInspectorSlice } from './inspector-slice'
import { createJobsSlice } from './jobs-slice'
import { createLiveSlice } from './live-slice'
import { createProjectsSlice } from './projects-slice'
import { createReplaySlice } from './replay-slice'
import { createTimelineSlice } from './timeline-slice'
import { createTreeSlice } from './tree-slice'
import type { ArborState } from './types'
import { createUiSlice } from './ui-slice'

/** The renderer's one store, composed of slices (zustand slices pattern). */
export const useArbor = create<ArborState>()((...args) => ({
  ...createJobsSlice(...args),
  ...createTreeSlice(...args),
  ...createInspectorSlice(...args),
  ...createControlsSlice(...args),
  ...createUiSlice(...args),
  ...createLiveSlice(...args),
  ...createProjectsSlice(...args),
  ...createAttentionSlice(...args),
  ...createCommandsSlice(...args),
  ...createFormsSlice(...args),
  ...createTimelineSlice(...args),
  ...createReplaySlice(...args),
  ...createChangesSlice(...args),
}))

export type { ArborState } from './types'
