import { describe, expect, it } from 'vitest'
import { create } from 'zustand'
import type { ApiInput, ApiOutputs, ArborApi } from '@core/api/contract'
import type { AgentNode, Job } from '@core/trace/model'
import { emptyUsage } from '@core/trace/usage'
import type { Transport } from '../api/transport'
import { eventFactory } from '../test-support/events'
import { setTransport } from './api-ref'
import { applyTreeEvents } from './tree-events'
import { createTreeSlice } from './tree-slice'
import { rootKey, SnapshotTree, treeFromSnapshot, treePageSize } from './tree-state'
import type { ArborState } from './types'

const agent = (id: string, parent: string | null, createdSecond: number): AgentNode => ({
  id,
  job_id: 'job-1',
  parent_id: parent,
  depth: parent ? 1 : 0,
  label: id,
  profile: 'explore',
  model: 'm',
  task: 't',
  status: 'running',
  terminal_reason: null,
  current_tool: null,
  steps: 0,
  max_steps: null,
  total_token_budget: null,
  usage: { ...emptyUsage(), input_tokens: 10 },
  cost_usd: null,
  created_at: new Date(Date.UTC(2025, 0, 1, 11, 0, 0, createdSecond)).toISOString(),
  started_at: null,
  ended_at: null,
  last_event_at: '2025-01-01T11:00:00.000Z',
})

/** A root and `count - 1` children, listed out of creation order (a page is not a time range). */
function snapshotAgents(count: number): AgentNode[] {
  const agents = [agent('root', null, 0)]
  for (let index = 1; index < count; index++) agents.push(agent(`a${index}`, 'root', (index * 7919) % count))
  return agents
}

/**
 * getTree as the engine pages it, one snapshot taken at the first call; `between` runs before
 * each later page is answered (what the engine commits meanwhile).
 */
function pagedApi(agents: AgentNode[], lastSeq: number, between: () => void) {
  const asked: ApiInput<'getTree'>[] = []
  const job = { id: 'job-1' } as Job
  const getTree = async (input: ApiInput<'getTree'>): Promise<ApiOutputs['getTree']> => {
    asked.push(input)
    if (input.page) between()
    const offset = input.page?.offset ?? 0
    const end = offset + treePageSize
    const next = end < agents.length ? { snapshot: 'snap', offset: end } : null
    return structuredClone({
      job,
      agents: agents.slice(offset, end),
      last_seq: lastSeq,
      approvals: [],
      approved_commands: [],
      answer: null,
      next,
    })
  }
  setTransport({ kind: 'browser', api: { getTree } as unknown as ArborApi } as Transport)
  return asked
}

const makeStore = () =>
  create<ArborState>()(
    (...args) =>
      ({ jobs: {}, jobOrder: [], ...(createTreeSlice as unknown as (...a: typeof args) => object)(...args) }) as unknown as ArborState,
  )

describe('loadTree', () => {
  it('reads a big tree a page at a time, one snapshot, and applies what the engine committed meanwhile after its watermark', async () => {
    const agents = snapshotAgents(2 * treePageSize + 500)
    const event = eventFactory()
    const store = makeStore()
    let pushed = false
    const asked = pagedApi(agents, 100, () => {
      if (pushed) return
      pushed = true
      // As the live slice applies a batch: one event the snapshot holds, two after it.
      const events = [
        event('llm.call', 'a1', { usage: { ...emptyUsage(), input_tokens: 5 }, cost_usd: null }, { parent_id: 'root', depth: 1, seq: 90 }),
        event('agent.start', 'late', { label: 'late', profile: 'explore', model: 'm' }, { parent_id: 'root', depth: 1, seq: 101 }),
        event('llm.call', 'a2', { usage: { ...emptyUsage(), input_tokens: 5 }, cost_usd: null }, { parent_id: 'root', depth: 1, seq: 102 }),
      ]
      store.setState((state) => ({ tree: applyTreeEvents(state.tree, events) }))
    })
    await store.getState().loadTree('job-1')

    expect(asked).toEqual([
      { job_id: 'job-1', limit: treePageSize },
      { job_id: 'job-1', page: { snapshot: 'snap', offset: treePageSize } },
      { job_id: 'job-1', page: { snapshot: 'snap', offset: 2 * treePageSize } },
    ])
    const tree = store.getState().tree
    expect(tree.loading).toBe(false)
    expect(tree.pending).toEqual([])
    expect(tree.lastSeq).toBe(102)
    expect(tree.order).toHaveLength(agents.length + 1)
    expect(tree.order.at(-1)).toBe('late')
    expect(tree.children.root).toHaveLength(agents.length)
    // seq 90 is in the snapshot already; seq 102 counts once.
    expect(tree.agents.a1!.steps).toBe(0)
    expect(tree.agents.a2!.steps).toBe(1)
    expect(tree.subtree.root!.agents).toBe(agents.length + 1)
  })

  it('stops reading pages once another job is selected', async () => {
    const store = makeStore()
    let switched: Promise<void> | null = null
    const asked = pagedApi(snapshotAgents(5 * treePageSize), 1, () => void (switched ??= store.getState().loadTree('job-2')))
    await store.getState().loadTree('job-1')
    await switched
    expect(asked.filter((input) => input.job_id === 'job-1')).toHaveLength(2)
    expect(store.getState().tree.jobId).toBe('job-2')
  })
})

describe('SnapshotTree', () => {
  it('puts pages in the order one sort of the whole snapshot gives, ties in snapshot order', () => {
    const agents = snapshotAgents(1000)
    // Ties: two agents created in the same millisecond as others.
    agents.push(agent('tie-1', 'root', 5), agent('tie-2', 'root', 5))
    const whole = treeFromSnapshot('job-1', agents, [], 7)
    const paged = new SnapshotTree()
    for (let offset = 0; offset < agents.length; offset += 97) paged.add(agents.slice(offset, offset + 97))
    const tree = paged.finish('job-1', [], 7)
    expect(tree).toEqual(whole)
    expect(tree.order.slice(0, 1)).toEqual(['root'])
    expect(tree.children[rootKey]).toEqual(['root'])
    const fives = tree.order.filter((id) => tree.agents[id]!.created_at === agents.find((item) => item.id === 'tie-1')!.created_at)
    expect(fives.slice(-2)).toEqual(['tie-1', 'tie-2'])
    const sorted = [...agents]
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0))
      .map((item) => item.id)
    expect(tree.order).toEqual(sorted)
  })
})
