import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { TraceEvent } from '@core/trace/events'
import { applyTreeEvents } from './tree-events'
import { emptyTree, type TreeState } from './tree-state'
import { eventFactory } from '../test-support/events'
import { checkpointEvery, createReplayCursor, extendCheckpoints, indexAt, seekIndex } from './replay-cursor'

const usage = { input_tokens: 10, output_tokens: 5, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 }

/** A root that spawns 40 children (every fifth queued first), each making model and tool calls: about 1,400 events. */
function bigJob(): TraceEvent[] {
  const event = eventFactory()
  const events: TraceEvent[] = [event('agent.start', 'root', { label: 'root', profile: 'general' })]
  for (let child = 0; child < 40; child++) {
    const id = `c${child}`
    const spawn = { child_agent_id: id, profile: 'explore', description: `child ${child}`, task: 't', call_id: `k${child}` }
    if (child % 5 === 0) events.push(event('subagent.queued', 'root', spawn))
    events.push(event('agent.start', id, { label: `child ${child}`, profile: 'explore' }, { parent_id: 'root', depth: 1 }))
    for (let step = 0; step < 16; step++) {
      events.push(event('tool.call', id, { call_id: `${id}-${step}`, name: 'read_file' }, { parent_id: 'root', depth: 1 }))
      events.push(event('llm.call', id, { usage, cost_usd: 0.001, duration_ms: 10 }, { parent_id: 'root', depth: 1 }))
    }
    events.push(
      event(
        'agent.end',
        id,
        { status: 'completed', terminal_reason: 'completed', usage, cost_usd: 0.016, steps: 16 },
        { parent_id: 'root', depth: 1 },
      ),
    )
  }
  return events
}

/** What the graph reads of a tree (the `structure` counter only has to change, not match). */
const drawn = (tree: TreeState) => ({
  agents: tree.agents,
  order: tree.order,
  children: tree.children,
  subtree: tree.subtree,
  lastSeq: tree.lastSeq,
})
const fresh = (events: TraceEvent[], count: number) => drawn(applyTreeEvents(emptyTree('job-1'), events.slice(0, count)))

describe('replay cursor', () => {
  const events = bigJob()

  it('shows the tree after any prefix of the trace, whatever order the scrubber visits', () => {
    expect(events.length).toBeGreaterThan(2 * checkpointEvery)
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: events.length }), { minLength: 1, maxLength: 12 }), (targets) => {
        let cursor = createReplayCursor('job-1', events)
        for (const target of targets) {
          cursor = seekIndex(cursor, target)
          expect(cursor.index).toBe(target)
          expect(drawn(cursor.tree)).toEqual(fresh(events, target))
        }
      }),
      { numRuns: 30 },
    )
  })

  it('keeps a checkpoint every so many events, and going back starts from one', () => {
    let cursor = seekIndex(createReplayCursor('job-1', events), events.length)
    expect(cursor.checkpoints).toHaveLength(Math.floor(events.length / checkpointEvery) + 1)
    cursor = seekIndex(cursor, checkpointEvery + 3)
    expect(Object.keys(cursor.tree.agents).length).toBeLessThan(Object.keys(fresh(events, events.length).agents).length)
    // Exactly at a checkpoint: the checkpoint itself, no reduction.
    expect(seekIndex(cursor, checkpointEvery).tree).toBe(cursor.checkpoints[1])
  })

  it('builds checkpoints ahead in slices, and a forward jump then starts from the one below its goal', () => {
    const cursor = createReplayCursor('job-1', events)
    let slices = 0
    while (extendCheckpoints(cursor, 1)) slices++
    expect(slices).toBe(Math.floor(events.length / checkpointEvery) - 1)
    expect(cursor.checkpoints).toHaveLength(Math.floor(events.length / checkpointEvery) + 1)
    expect(seekIndex(cursor, 2 * checkpointEvery).tree).toBe(cursor.checkpoints[2])
    expect(drawn(seekIndex(cursor, 2 * checkpointEvery + 7).tree)).toEqual(fresh(events, 2 * checkpointEvery + 7))
  })

  it('seeks by time over a running maximum, so a ts that steps back does not end the replay early', () => {
    const stepBack = events.slice(0, 4).map((event, index) => (index === 2 ? { ...event, ts: events[0]!.ts } : event))
    const cursor = createReplayCursor('job-1', stepBack)
    const at = (index: number) => Date.parse(stepBack[index]!.ts)
    expect(indexAt(cursor, at(0) - 1)).toBe(0)
    expect(indexAt(cursor, at(1))).toBe(3)
    expect(indexAt(cursor, at(3))).toBe(4)
  })
})
