import { useEffect } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import { replaySpeeds } from '../store/replay-slice'
import { replaySliderRange, replaySliderValue, replayTimeAt } from './replay-slider'
import { formatSeconds } from './time-range'

const selectReplay = (state: ArborState) => {
  const replay = state.replay
  return {
    active: replay !== null,
    loading: replay?.loading ?? false,
    error: replay?.error ?? null,
    ready: replay?.cursor != null,
    startMs: replay?.startMs ?? 0,
    endMs: replay?.endMs ?? 0,
    atMs: replay?.atMs ?? 0,
    playing: replay?.playing ?? false,
    speed: replay?.speed ?? 1,
    agents: replay?.cursor?.tree.order.length ?? 0,
    events: replay?.cursor?.index ?? 0,
  }
}

/** Plays a finished job back: the graph shows the tree as it was at the scrubber's time. */
export function ReplayBar() {
  const replay = useArbor(useShallow(selectReplay))
  usePlayback(replay.playing)
  if (!replay.active) return null
  const store = useArbor.getState()
  const elapsed = replaySliderValue(replay.startMs, replay.atMs)
  const range = replaySliderRange(replay.startMs, replay.endMs)

  return (
    <div
      className="replay-bar"
      data-testid="replay-bar"
      data-at={elapsed.toFixed(3)}
      data-agents={replay.agents}
      data-playing={replay.playing}
    >
      <span className="replay-bar__tag">Replay</span>
      {replay.loading && <span className="muted">Loading the trace…</span>}
      {replay.error && <span className="error">Could not load the trace: {replay.error}</span>}
      {replay.ready && (
        <>
          <button
            className="button small"
            data-testid="replay-play"
            aria-label={replay.playing ? 'Pause' : 'Play'}
            onClick={() => store.setReplayPlaying(!replay.playing)}
          >
            {replay.playing ? '❚❚' : '▶'}
          </button>
          <input
            className="replay-bar__slider"
            data-testid="replay-slider"
            type="range"
            min={0}
            max={range.max}
            step={range.step}
            value={elapsed}
            aria-label="Replay time"
            onChange={(event) => {
              store.setReplayPlaying(false)
              store.seekReplay(replayTimeAt(replay.startMs, replay.endMs, event.target.value))
            }}
          />
          <span className="replay-bar__time">
            {formatSeconds(elapsed)} / {formatSeconds(range.max)}
          </span>
          <span className="replay-bar__count">
            {replay.agents} agents · {replay.events} events
          </span>
          <select
            className="replay-bar__speed"
            data-testid="replay-speed"
            value={replay.speed}
            aria-label="Replay speed"
            onChange={(event) => store.setReplaySpeed(Number(event.target.value))}
          >
            {replaySpeeds.map((speed) => (
              <option key={speed} value={speed}>
                {speed}×
              </option>
            ))}
          </select>
        </>
      )}
      <button className="button small" data-testid="replay-exit" onClick={() => store.stopReplay()}>
        Exit replay
      </button>
    </div>
  )
}

/** While playing, moves the replay on by the frame's wall-clock time × speed. */
function usePlayback(playing: boolean): void {
  useEffect(() => {
    if (!playing) return
    let last = performance.now()
    let frame = requestAnimationFrame(function tick(now) {
      const replay = useArbor.getState().replay
      if (!replay?.playing) return
      useArbor.getState().seekReplay(replay.atMs + (now - last) * replay.speed)
      last = now
      frame = requestAnimationFrame(tick)
    })
    return () => cancelAnimationFrame(frame)
  }, [playing])
}
