import { describe, expect, it } from 'vitest'
import { CommandOverlaps } from './command-overlaps'

const a = { agent_id: 'a', call_id: 'c1' }
const b = { agent_id: 'b', call_id: 'c1' }
const c = { agent_id: 'c', call_id: 'c7' }

describe('CommandOverlaps', () => {
  it("names the other agents' commands running in the same folder, or ended after this one started", () => {
    const overlaps = new CommandOverlaps()
    overlaps.started('/p', a)
    overlaps.started('/p', b)
    overlaps.started('/other', c)
    expect(overlaps.overlapping('/p', a)).toEqual([b])
    overlaps.ended('/p', b)
    // b ended after a started: it still overlapped a.
    expect(overlaps.overlapping('/p', a)).toEqual([b])
    expect(overlaps.overlapping('/other', c)).toEqual([])
  })

  it('does not name a command that ended before this one started, nor this agent’s own', () => {
    const overlaps = new CommandOverlaps()
    overlaps.started('/p', b)
    overlaps.ended('/p', b)
    overlaps.started('/p', a)
    overlaps.started('/p', { agent_id: 'a', call_id: 'c2' })
    expect(overlaps.overlapping('/p', a)).toEqual([])
  })

  it('names nothing for a command it never saw start, and closes the windows of an agent that ended', () => {
    const overlaps = new CommandOverlaps()
    overlaps.started('/p', b)
    expect(overlaps.overlapping('/p', a)).toEqual([])
    overlaps.agentEnded('b')
    overlaps.started('/p', a)
    expect(overlaps.overlapping('/p', a)).toEqual([])
    // A window closed twice, or one never opened, changes nothing.
    overlaps.ended('/p', b)
    overlaps.ended('/p', c)
    expect(overlaps.overlapping('/p', a)).toEqual([])
  })
})
