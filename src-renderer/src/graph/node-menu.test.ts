import { describe, expect, it } from 'vitest'
import { agentStatusSchema, type AgentStatus } from '@core/trace/statuses'
import { nextEntryIndex, nodeMenuEntries } from './node-menu'

const actionsFor = (status: AgentStatus, readOnly = false) => nodeMenuEntries({ status, readOnly }).map((entry) => entry.action)

describe('nodeMenuEntries', () => {
  it('offers steer, a branch budget and kill for a running agent, one waiting for an approval, and one paused at a budget', () => {
    for (const status of ['running', 'waiting_approval', 'paused'] as const) {
      expect(actionsFor(status)).toEqual(['inspect', 'steer', 'setBudget', 'wrapUp', 'kill'])
    }
  })

  it('offers Retry now to an agent waiting for a rate limit, besides what a running agent has', () => {
    expect(actionsFor('rate_limited')).toEqual(['inspect', 'retryNow', 'steer', 'setBudget', 'wrapUp', 'kill'])
    expect(actionsFor('rate_limited', true)).toEqual(['inspect'])
  })

  it('offers Show changes to a node that changed files, and Revert changes… once it ended; a read-only one only shows them', () => {
    const actions = (status: AgentStatus, readOnly = false) =>
      nodeMenuEntries({ status, readOnly, changedFiles: true }).map((entry) => entry.action)
    expect(actions('completed')).toEqual(['inspect', 'showChanges', 'followUp', 'revertChanges'])
    expect(actions('running')).toEqual(['inspect', 'showChanges', 'steer', 'setBudget', 'wrapUp', 'kill'])
    expect(actions('failed', true)).toEqual(['inspect', 'showChanges'])
    expect(actionsFor('completed')).toEqual(['inspect', 'followUp'])
  })

  it('offers to edit the prompt of, or cancel, a spawn that has not started', () => {
    expect(actionsFor('held')).toEqual(['inspect', 'editPrompt', 'cancelSpawn'])
    expect(actionsFor('queued')).toEqual(['inspect', 'editPrompt', 'cancelSpawn'])
  })

  it('offers Restart for an unresponsive running agent', () => {
    const entries = nodeMenuEntries({ status: 'running', readOnly: false, unresponsive: true })
    expect(entries.map((entry) => entry.action)).toEqual(['inspect', 'steer', 'setBudget', 'wrapUp', 'kill', 'restart'])
    expect(nodeMenuEntries({ status: 'completed', readOnly: false, unresponsive: true }).map((entry) => entry.action)).toEqual([
      'inspect',
      'followUp',
    ])
  })

  it('offers to allow a spawn held by a job limit (not one held because spawning is paused)', () => {
    expect(nodeMenuEntries({ status: 'held', readOnly: false, heldByLimit: true }).map((entry) => entry.action)).toEqual([
      'inspect',
      'allowSpawn',
      'editPrompt',
      'cancelSpawn',
    ])
    expect(nodeMenuEntries({ status: 'held', readOnly: true, heldByLimit: true }).map((entry) => entry.action)).toEqual(['inspect'])
  })

  it('offers a follow-up for an agent that has ended, and only Inspect for any node of a read-only job', () => {
    for (const status of ['completed', 'partial', 'failed', 'killed', 'cancelled'] as const) {
      expect(actionsFor(status)).toEqual(['inspect', 'followUp'])
    }
    for (const status of agentStatusSchema.options) expect(actionsFor(status, true)).toEqual(['inspect'])
  })

  it('offers Merge and Discard for a worktree child that ended: Merge until merged, Discard while its worktree is there', () => {
    const actions = (status: AgentStatus, state: string, present: boolean, readOnly = false) =>
      nodeMenuEntries({ status, readOnly, worktree: { state, present } }).map((entry) => entry.action)
    expect(actions('completed', 'committed', true)).toEqual(['inspect', 'followUp', 'mergeBranch', 'discardBranch'])
    expect(actions('failed', 'conflict', true)).toEqual(['inspect', 'followUp', 'mergeBranch', 'discardBranch'])
    expect(actions('completed', 'merged', false)).toEqual(['inspect', 'followUp'])
    expect(actions('completed', 'discarded', false)).toEqual(['inspect', 'followUp', 'mergeBranch'])
    // Never while it runs in its worktree, nor in a read-only job.
    expect(actions('running', 'created', true)).toEqual(['inspect', 'steer', 'setBudget', 'wrapUp', 'kill'])
    expect(actions('completed', 'committed', true, true)).toEqual(['inspect'])
    // Its changed files can be shown, but not reverted while on its branch: Merge or Discard decide them.
    const changed = nodeMenuEntries({
      status: 'completed',
      readOnly: false,
      changedFiles: true,
      worktree: { state: 'committed', present: true },
    })
    expect(changed.map((entry) => entry.action)).toEqual(['inspect', 'showChanges', 'followUp', 'mergeBranch', 'discardBranch'])
    const discard = nodeMenuEntries({ status: 'completed', readOnly: false, worktree: { state: 'committed', present: true } }).at(-1)
    expect(discard).toEqual({ action: 'discardBranch', label: 'Discard', danger: true })
    // Merged, its changes are the project's: Revert undoes the merge.
    const merged = nodeMenuEntries({
      status: 'completed',
      readOnly: false,
      changedFiles: true,
      worktree: { state: 'merged', present: false },
    })
    expect(merged.map((entry) => entry.action)).toEqual(['inspect', 'showChanges', 'followUp', 'revertChanges'])
  })

  it('marks the entries that end agents, and labels the ones that open a dialog with an ellipsis', () => {
    const entries = [...nodeMenuEntries({ status: 'running', readOnly: false }), ...nodeMenuEntries({ status: 'held', readOnly: false })]
    expect(entries.filter((entry) => entry.danger).map((entry) => entry.action)).toEqual(['kill', 'cancelSpawn'])
    expect(entries.filter((entry) => entry.label.endsWith('…')).map((entry) => entry.action)).toEqual(['steer', 'setBudget', 'editPrompt'])
    expect(nodeMenuEntries({ status: 'completed', readOnly: false }).at(-1)).toEqual({ action: 'followUp', label: 'Follow up…' })
  })
})

describe('nextEntryIndex', () => {
  it('moves with the arrow keys, wrapping at both ends, and jumps with Home and End', () => {
    expect(nextEntryIndex(0, 3, 'ArrowDown')).toBe(1)
    expect(nextEntryIndex(2, 3, 'ArrowDown')).toBe(0)
    expect(nextEntryIndex(0, 3, 'ArrowUp')).toBe(2)
    expect(nextEntryIndex(1, 3, 'Home')).toBe(0)
    expect(nextEntryIndex(0, 3, 'End')).toBe(2)
    expect(nextEntryIndex(1, 3, 'x')).toBe(1)
    expect(nextEntryIndex(0, 0, 'ArrowDown')).toBe(0)
  })
})
