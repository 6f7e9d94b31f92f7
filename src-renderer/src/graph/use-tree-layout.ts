import { useEffect, useState } from 'react'
import type { TreeState } from '../store/tree-state'
import { layoutOptions } from './flow-elements'
import type { LayoutOptions, TreeLayout } from './layout'
import type { LayoutInput } from './layout-request'
import { LayoutScheduler, type LayoutPort } from './layout-scheduler'

/** Up to this many drawn nodes the layout runs on the main thread: it takes a few milliseconds, less than a worker's round trip. */
const syncLayoutUpTo = 500

export interface LayoutSource {
  tree: TreeState
  input: LayoutInput
  /** The layout's options, when not the graph's defaults (a small tree wrapped to its pane). */
  options?: LayoutOptions
}

/** A layout with the tree it was computed from, so nodes and positions match. */
export interface ShownLayout extends LayoutSource {
  layout: TreeLayout
}

const createPort = (): LayoutPort | null =>
  typeof Worker === 'undefined'
    ? null
    : (new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' }) as unknown as LayoutPort)

/** The graph shown now, to hand each worker layout to. */
let deliver: ((shown: ShownLayout) => void) | null = null

/**
 * One scheduler, and so one worker, for the window's life: the graph mounts anew for each job,
 * and a worker costs its start-up (a thread, the script) each time it is made.
 */
const scheduler = new LayoutScheduler<LayoutSource>({
  options: layoutOptions,
  syncUpTo: syncLayoutUpTo,
  createPort,
  onLayout: (layout, context) => deliver?.({ ...context, layout }),
})

/**
 * The layout to draw for `source`: at once for a small tree; for a big one from the layout
 * worker, showing the last layout of the same job meanwhile (nothing, for another job).
 */
export function useTreeLayout(source: LayoutSource): ShownLayout | null {
  const [shown, setShown] = useState<ShownLayout | null>(null)
  useEffect(() => {
    deliver = setShown
    return () => {
      if (deliver === setShown) deliver = null
    }
  }, [])
  // Requested while rendering (once per source): a small tree's layout lands in this same commit.
  const [requested, setRequested] = useState<LayoutSource | null>(null)
  if (requested !== source) {
    setRequested(source)
    const layout = scheduler.request(source.input, source, source.options)
    if (layout) setShown({ ...source, layout })
  }
  return shown && shown.tree.jobId === source.tree.jobId ? shown : null
}
