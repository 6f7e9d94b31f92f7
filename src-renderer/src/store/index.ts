import { create } from 'zustand'
import { createControlsSlice } from './controls-slice'
import { createInspectorSlice } from './inspector-slice'
import { createJobsSlice } from './jobs-slice'
import { createLiveSlice } from './live-slice'
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
}))

export type { ArborState } from './types'
