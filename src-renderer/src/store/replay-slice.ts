import type { TraceEvent } from '@core/trace/events'
import { createReplayCursor, extendCheckpoints, indexAt, seekIndex, type ReplayCursor } from './replay-cursor'
import { api } from './api-ref'
import type { TreeState } from './tree-state'
import { errorText } from './error-text'
import type { ArborState, ReplaySlice, ReplayState, SliceCreator } from './types'

export const replaySpeeds = [1, 2, 5, 10, 25, 50, 100] as const
/** A replay's first speed plays the job in about this long (or at 1×, if it is shorter). */
const targetReplaySeconds = 20
const pageSize = 5000
const maxPages = 400

/** The tree the graph draws: the replay's while one runs, else the live one. */
export const graphTree = (state: ArborState): TreeState => state.replay?.cursor?.tree ?? state.tree

async function fetchReplayEvents(jobId: string): Promise<TraceEvent[]> {
  const all: TraceEvent[] = []
  let cursor = 0
  for (let page = 0; page < maxPages; page++) {
    const { events } = await api().getReplayEvents({ job_id: jobId, after_seq: cursor, limit: pageSize })
    all.push(...events)
    if (events.length < pageSize) break
    cursor = events.at(-1)!.seq
  }
  return all
}

/** Builds the cursor's checkpoints a few at a time between frames, while its replay lasts, so a seek anywhere is quick. */
function prepareCheckpoints(cursor: ReplayCursor, stillShown: () => boolean): void {
  const slice = (): void => {
    if (stillShown() && extendCheckpoints(cursor, 2)) setTimeout(slice, 0)
  }
  setTimeout(slice, 0)
}

export const createReplaySlice: SliceCreator<ReplaySlice> = (set, get) => {
  const update = (change: (replay: ReplayState) => Partial<ReplayState>): void =>
    set((state) => (state.replay ? { replay: { ...state.replay, ...change(state.replay) } } : {}))

  return {
    replay: null,

    async startReplay() {
      const jobId = get().selectedJobId
      if (!jobId) return
      set({ replay: { jobId, loading: true, error: null, cursor: null, startMs: 0, endMs: 0, atMs: 0, playing: false, speed: 1 } })
      try {
        const events = await fetchReplayEvents(jobId)
        if (get().replay?.jobId !== jobId) return
        const cursor = createReplayCursor(jobId, events)
        const startMs = cursor.times[0] ?? 0
        const endMs = cursor.times.at(-1) ?? startMs
        const seconds = (endMs - startMs) / 1000
        const speed = replaySpeeds.find((candidate) => seconds / candidate <= targetReplaySeconds) ?? replaySpeeds.at(-1)!
        update(() => ({ loading: false, cursor, startMs, endMs, atMs: startMs, playing: true, speed }))
        prepareCheckpoints(cursor, () => get().replay?.cursor?.events === events)
      } catch (error) {
        update(() => ({ loading: false, error: errorText(error) }))
      }
    },

    stopReplay: () => set({ replay: null }),

    seekReplay(ms) {
      update((replay) => {
        if (!replay.cursor) return {}
        const atMs = Math.max(replay.startMs, Math.min(replay.endMs, ms))
        return { atMs, cursor: seekIndex(replay.cursor, indexAt(replay.cursor, atMs)), playing: replay.playing && atMs < replay.endMs }
      })
    },

    setReplayPlaying(playing) {
      const replay = get().replay
      // Play at the end starts again from the beginning.
      if (playing && replay && replay.atMs >= replay.endMs) get().seekReplay(replay.startMs)
      update(() => ({ playing }))
    },

    setReplaySpeed: (speed) => update(() => ({ speed })),
  }
}
