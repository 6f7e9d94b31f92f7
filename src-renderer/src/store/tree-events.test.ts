import { describe, expect, it } from 'vitest'
import type { AgentNode } from '@core/trace/model'
import { emptyUsage } from '@core/trace/usage'
import { eventFactory } from '../test-support/events'
import { applyInspectorEvents, openInspector } from './inspector-events'
import { applyTreeEvents } from './tree-events'
import { buildSubtreeTotals, emptyTree, rootKey, treeFromSnapshot } from './tree-state'

const usage = (input: number, output: number) => ({ ...emptyUsage(), input_tokens: input, output_tokens: output })

/** A demo-like burst: root starts, spawns three children (one held), two run and finish. */
function demoBatch() {
  const event = eventFactory()
  return [
    event('job.start', null, { task: 'demo' }),
    event('agent.start', 'root', { label: 'root', profile: 'general', model: 'm', max_steps: 50 }),
    event('llm.call', 'root', { usage: usage(100, 20), cost_usd: 0.01 }),
    event('subagent.queued', 'root', { child_agent_id: 'a', profile: 'explore', description: 'scan src' }),
    event('subagent.queued', 'root', { child_agent_id: 'b', profile: 'explore', description: 'scan docs' }),
    event('subagent.held', 'root', { child_agent_id: 'c', profile: 'worker', description: 'fix' }),
    event(
      'agent.start',
      'a',
      { profile: 'explore', model: 'light', max_steps: 12, total_token_budget: 32000 },
      { parent_id: 'root', depth: 1 },
    ),
    event('agent.start', 'b', { profile: 'explore', model: 'light' }, { parent_id: 'root', depth: 1 }),
    event('tool.call', 'a', { call_id: 'x', name: 'read_file' }, { parent_id: 'root', depth: 1 }),
    event('llm.call', 'a', { usage: usage(300, 40), cost_usd: 0.002 }, { parent_id: 'root', depth: 1 }),
    event('llm.call', 'b', { usage: usage(50, 5), cost_usd: null }, { parent_id: 'root', depth: 1 }),
    event(
      'agent.end',
      'b',
      { status: 'completed', terminal_reason: 'completed', usage: usage(50, 5), cost_usd: null, steps: 1 },
      { parent_id: 'root', depth: 1 },
    ),
  ]
}

describe('applyTreeEvents', () => {
  it('marks an agent told to wrap up as wrapping up until it ends', () => {
    const event = eventFactory()
    const asked = { phase: 'requested', by: 'user', target: 'root', requested_at: '2025-03-01T10:00:00.000Z' }
    const started = applyTreeEvents(emptyTree('job-1'), [
      ...demoBatch(),
      // After the batch's own events (a factory of its own numbers from 1 again).
      event('agent.wrap_up', 'a', asked, { parent_id: 'root', depth: 1, seq: 100 }),
      event('agent.wrap_up', 'root', asked),
    ])
    expect(started.wrappingUp).toEqual({ a: true, root: true })
    const ended = applyTreeEvents(started, [
      event(
        'agent.end',
        'a',
        { status: 'completed', terminal_reason: 'completed', usage: usage(1, 1), cost_usd: null, steps: 2, wrapped_up: true },
        { parent_id: 'root', depth: 1 },
      ),
    ])
    expect(ended.wrappingUp).toEqual({ root: true })
  })

  it('keeps why a spawn is held by a job limit until it is allowed, and forgets a pause hold', () => {
    const event = eventFactory()
    const reason = 'job has 200 agents (max_agents)'
    const held = applyTreeEvents(emptyTree('job-1'), [
      ...demoBatch(),
      event(
        'subagent.held',
        'root',
        { child_agent_id: 'd', profile: 'explore', description: 'more', reason, limit: 'max_agents' },
        { seq: 100 },
      ),
      event('subagent.held', 'root', { child_agent_id: 'e', profile: 'explore', description: 'paused', reason: 'spawning is paused' }),
    ])
    expect(held.held).toEqual({ d: { agent_id: 'd', limit: 'max_agents', reason } })
    expect(held.agents.d?.status).toBe('held')
    const allowed = applyTreeEvents(held, [
      event('control', 'd', { action: 'allow_spawn', target: 'd', value: 'max_agents', by: 'user' }, { parent_id: 'root', depth: 1 }),
    ])
    expect(allowed.held).toEqual({})
  })

  it('marks an agent unresponsive from its agent.health until it is responsive again or ends', () => {
    const event = eventFactory()
    const last = '2025-03-01T10:00:00.000Z'
    const silent = applyTreeEvents(emptyTree('job-1'), [
      ...demoBatch(),
      event(
        'agent.health',
        'a',
        { state: 'unresponsive', last_heartbeat_at: last, silent_ms: 30_000 },
        { parent_id: 'root', depth: 1, seq: 100 },
      ),
      event('agent.health', 'root', { state: 'unresponsive', last_heartbeat_at: last, silent_ms: 30_000 }),
    ])
    expect(silent.unresponsive).toEqual({ a: last, root: last })
    const later = applyTreeEvents(silent, [
      event('agent.health', 'a', { state: 'responsive', last_heartbeat_at: last, silent_ms: 41_000 }, { parent_id: 'root', depth: 1 }),
      event('agent.end', 'root', { status: 'killed', terminal_reason: 'killed', usage: usage(1, 1), cost_usd: null, steps: 2 }),
    ])
    expect(later.unresponsive).toEqual({})
  })

  it("follows a worktree child's worktree: created, committed with its files, a conflict, then discarded (gone, branch kept)", () => {
    const event = eventFactory()
    const place = { parent_id: 'root', depth: 1 }
    const where = { branch: 'arbor/job-1/scan-src-abc123', path: '/repo/.git/arbor/worktrees/job-1/scan-src-abc123' }
    const created = applyTreeEvents(emptyTree('job-1'), [
      ...demoBatch(),
      event('worktree', 'a', { action: 'created', ...where }, { ...place, seq: 101 }),
    ])
    expect(created.worktrees).toEqual({ a: { agent_id: 'a', branch: where.branch, state: 'created', present: true, files: [] } })
    const committed = applyTreeEvents(created, [
      event('worktree', 'a', { action: 'committed', ...where, files: ['src/x.ts'] }, { ...place, seq: 102 }),
    ])
    expect(committed.worktrees.a).toMatchObject({ state: 'committed', present: true, files: ['src/x.ts'] })
    const conflicted = applyTreeEvents(committed, [
      event(
        'worktree',
        'a',
        { action: 'conflict', ...where, conflicts: [{ path: 'src/x.ts', hunks: [] }], by: 'user' },
        { ...place, seq: 103 },
      ),
    ])
    expect(conflicted.worktrees.a).toMatchObject({ state: 'conflict', present: true, files: ['src/x.ts'] })
    const discarded = applyTreeEvents(conflicted, [
      event('worktree', 'a', { action: 'discarded', ...where, by: 'user' }, { ...place, seq: 104 }),
    ])
    expect(discarded.worktrees.a).toMatchObject({ state: 'discarded', present: false })
  })

  it('builds the tree from one batch: nodes, statuses, ghosts, order and structure', () => {
    const tree = applyTreeEvents(emptyTree('job-1'), demoBatch())
    expect(tree.order).toEqual(['root', 'a', 'b', 'c'])
    expect(tree.children[rootKey]).toEqual(['root'])
    expect(tree.children.root).toEqual(['a', 'b', 'c'])
    const status = (id: string) => tree.agents[id]!.status
    expect([status('root'), status('a'), status('b'), status('c')]).toEqual(['running', 'running', 'completed', 'held'])
    expect(tree.agents.a).toMatchObject({ label: 'scan src', depth: 1, parent_id: 'root', current_tool: 'read_file', steps: 1 })
    expect(tree.agents.a!.total_token_budget).toBe(32000)
    expect(tree.structure).toBe(1)
    expect(tree.lastSeq).toBe(12)
  })

  it('sums subtree tokens and cost, and counts active children', () => {
    const tree = applyTreeEvents(emptyTree('job-1'), demoBatch())
    expect(tree.subtree.root).toMatchObject({ tokens: 120 + 340 + 55, agents: 4, activeChildren: 1 })
    expect(tree.subtree.root!.cost).toBeCloseTo(0.012)
    expect(tree.subtree.b).toMatchObject({ tokens: 55, cost: null })
  })

  it('sums again only what a batch changed, to the same totals as summing the whole tree', () => {
    const tree = applyTreeEvents(emptyTree('job-1'), demoBatch())
    const event = eventFactory()
    const later = applyTreeEvents(tree, [
      event('llm.call', 'a', { usage: usage(1000, 7), cost_usd: 0.5 }, { parent_id: 'root', depth: 1, seq: 13 }),
      event(
        'agent.end',
        'a',
        { status: 'completed', terminal_reason: 'completed', usage: usage(1300, 47), cost_usd: 0.502, steps: 2 },
        { parent_id: 'root', depth: 1, seq: 14 },
      ),
    ])
    expect(later.structure).toBe(tree.structure)
    expect(later.subtree).toEqual(buildSubtreeTotals(later.agents, later.children))
    expect(later.subtree.root).toMatchObject({ tokens: 120 + 1347 + 55, activeChildren: 0 })
    // An agent outside the changed path keeps its totals object.
    expect(later.subtree.b).toBe(tree.subtree.b)
  })

  it('keeps unchanged agents by identity and leaves the structure alone for status changes', () => {
    const batch = demoBatch()
    const tree = applyTreeEvents(emptyTree('job-1'), batch)
    const event = eventFactory()
    const end = event('agent.end', 'a', { status: 'killed', terminal_reason: 'killed' }, { parent_id: 'root', depth: 1, seq: 13 })
    const next = applyTreeEvents(tree, [end])
    expect(next.agents.a!.status).toBe('killed')
    expect(next.agents.root).toBe(tree.agents.root)
    expect(next.structure).toBe(tree.structure)
  })

  it('ignores other jobs and events already applied', () => {
    const tree = applyTreeEvents(emptyTree('job-1'), demoBatch())
    const other = eventFactory('job-2')('agent.start', 'z', {})
    const replay = demoBatch()
    expect(applyTreeEvents(tree, [other])).toBe(tree)
    expect(applyTreeEvents(tree, replay)).toBe(tree)
  })

  it('holds events while the snapshot loads and applies only those above the watermark', () => {
    const batch = demoBatch()
    const loading = applyTreeEvents(emptyTree('job-1', true), batch.slice(8))
    expect(loading.pending).toHaveLength(4)
    const snapshotAgents: AgentNode[] = Object.values(applyTreeEvents(emptyTree('job-1'), batch.slice(0, 10)).agents)
    const loaded = treeFromSnapshot('job-1', snapshotAgents, [], 10)
    const tree = applyTreeEvents(loaded, loading.pending)
    // seq 9 and 10 were in the snapshot: the llm.call of `a` is counted once.
    expect(tree.agents.a!.steps).toBe(1)
    expect(tree.agents.b!.status).toBe('completed')
    expect(tree.lastSeq).toBe(12)
  })

  it('tracks pending approvals from requests and decisions', () => {
    const event = eventFactory()
    const start = event('agent.start', 'root', {})
    const request = event('approval.request', 'root', {
      approval_id: 'ap1',
      tool: 'bash',
      command: 'rm -rf build',
      reason: 'deletes files',
    })
    const waiting = applyTreeEvents(emptyTree('job-1'), [start, request])
    expect(waiting.agents.root!.status).toBe('waiting_approval')
    expect(waiting.approvals).toEqual([
      { approval_id: 'ap1', job_id: 'job-1', agent_id: 'root', tool: 'bash', command: 'rm -rf build', reason: 'deletes files' },
    ])
    const decided = applyTreeEvents(waiting, [event('approval.decision', 'root', { approval_id: 'ap1', decision: 'approved', by: 'user' })])
    expect(decided.approvals).toEqual([])
    expect(decided.agents.root!.status).toBe('running')
  })
})

describe('inspector events', () => {
  it('tails the open agents only and merges out-of-order fetches without duplicates', () => {
    const batch = demoBatch()
    let inspectors = openInspector(openInspector([], 'a'), 'b')
    inspectors = applyInspectorEvents(inspectors, batch.slice(0, 9))
    expect(inspectors[0]!.events.map((event) => event.seq)).toEqual([7, 9])
    inspectors = applyInspectorEvents(inspectors, batch)
    expect(inspectors[0]!.events.map((event) => event.seq)).toEqual([7, 9, 10])
    expect(inspectors[1]!.events.map((event) => event.type)).toEqual(['agent.start', 'llm.call', 'agent.end'])
  })

  it('keeps at most three inspectors, dropping the oldest', () => {
    const inspectors = ['a', 'b', 'c', 'd'].reduce(openInspector, [])
    expect(inspectors.map((inspector) => inspector.agentId)).toEqual(['b', 'c', 'd'])
  })
})
