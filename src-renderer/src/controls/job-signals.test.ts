import { describe, expect, it } from 'vitest'
import { defaultSettings, type AgentNode, type JobSettings } from '@core/trace/model'
import { emptyUsage } from '@core/trace/usage'
import { budgetShare, stopReasonOf, warningShare } from './job-signals'

const settings = (budgets: Partial<JobSettings> = {}): JobSettings => defaultSettings(budgets)

const agent = (id: string, parent: string | null, terminal: AgentNode['terminal_reason'] = 'completed'): AgentNode => ({
  id,
  job_id: 'job-1',
  parent_id: parent,
  depth: parent ? 1 : 0,
  label: parent ? `explore-${id}` : 'root',
  profile: parent ? 'explore' : 'general',
  model: 'scripted',
  task: 't',
  status: terminal === 'completed' ? 'completed' : 'failed',
  terminal_reason: terminal,
  current_tool: null,
  steps: 1,
  max_steps: null,
  total_token_budget: null,
  usage: emptyUsage(),
  cost_usd: null,
  created_at: '2025-01-01T00:00:00Z',
  started_at: null,
  ended_at: null,
  last_event_at: '2025-01-01T00:00:00Z',
})

describe('budgetShare and warningShare', () => {
  it('takes the larger share of the budgets that are set', () => {
    expect(budgetShare(settings(), 500, 1)).toBeNull()
    expect(budgetShare(settings({ job_token_budget: 1000 }), 500, null)).toBe(0.5)
    expect(budgetShare(settings({ job_token_budget: 1000, job_cost_budget: 1 }), 500, 0.9)).toBe(0.9)
  })

  it('warns from 80 %, from the event or the totals', () => {
    expect(warningShare(undefined, 0.5)).toBeNull()
    expect(warningShare(0.82, 0.5)).toBe(0.82)
    expect(warningShare(undefined, 0.85)).toBe(0.85)
  })
})

describe('stopReasonOf', () => {
  it('says nothing when no agent hit a cap', () => {
    expect(stopReasonOf({ settings: settings(), tokens: 10, cost: null, agents: [agent('r', null), agent('c', 'r')] })).toBeNull()
  })

  it('names the job token budget, or the cost budget when that share is larger', () => {
    const agents = [agent('r', null, 'token_budget'), agent('c', 'r', 'token_budget')]
    expect(stopReasonOf({ settings: settings({ job_token_budget: 1000 }), tokens: 1004, cost: null, agents })).toEqual({
      kind: 'job_token_budget',
      text: 'Stopped: job token budget reached',
      job: true,
    })
    expect(
      stopReasonOf({ settings: settings({ job_token_budget: 10_000, job_cost_budget: 0.5 }), tokens: 2000, cost: 0.51, agents }),
    ).toMatchObject({ kind: 'job_cost_budget', text: 'Stopped: job cost budget reached' })
  })

  it('reports a root timeout as the job stopping, and a subagent’s by its label', () => {
    expect(stopReasonOf({ settings: settings(), tokens: 0, cost: null, agents: [agent('r', null, 'timeout')] })).toMatchObject({
      kind: 'timeout',
      job: true,
    })
    expect(stopReasonOf({ settings: settings(), tokens: 0, cost: null, agents: [agent('r', null), agent('c', 'r', 'timeout')] })).toEqual({
      kind: 'timeout',
      text: 'explore-c timed out',
      job: false,
    })
  })
})
