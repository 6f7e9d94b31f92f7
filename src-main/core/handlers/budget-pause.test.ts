import { mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { Engine } from '../engine'
import { useCleanups } from '../testing/cleanups'
import type { TraceEvent } from '../trace/events'
import { defaultSettings, type JobSettings, type ScriptPlan, type ScriptTurn } from '../trace/model'
import { handlerEngine } from './testing'

/**
 * Budgets that pause (issue 21 §3), with real agent processes, a SQLite file and the scripted
 * model (it counts its prompt as usage: about 1,500 tokens for a root's call, 700 for a child's):
 * a spent cap holds each agent at its next model call (status `paused`, `agent.wait`), nothing is
 * killed; `setBudget` (through the dispatcher, so its zod parse runs) raises it and they go on.
 */

const { cleanups, tempDir } = useCleanups('arbor-budget-pause-')

function makeRig() {
  const dir = tempDir()
  const project = path.join(dir, 'project')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Fixture\n\nA small project for budget tests.\n')
  const rig = handlerEngine({ dbFile: path.join(dir, 'arbor.db'), project, warmPool: 0, waitMs: 30_000, cleanups })
  const start = (script: ScriptPlan, settings: Partial<JobSettings>): string =>
    rig.engine.supervisor.startJob({ project, task: 'budget job', settings: defaultSettings({ ...settings, script }) })
  return { ...rig, project, start }
}

const listing = (delayMs = 50): ScriptTurn => ({ delay_ms: delayMs, tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] })
const repeat = <T>(times: number, make: () => T): T[] => Array.from({ length: times }, make)
const complete = (result: string): ScriptTurn => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const awaitTasks: ScriptTurn = { tool_calls: [{ name: 'await_tasks', arguments: {} }] }
const backgroundTask = (label: string, extra: Record<string, unknown> = {}) => ({
  name: 'task',
  arguments: { description: label, subagent_type: 'general', prompt: `Do: ${label}`, background: true, ...extra },
})

const restartSeq = (events: TraceEvent[]): number => events.find((event) => event.type === 'agent.restart')?.seq ?? Infinity
const ofType = (events: TraceEvent[], type: string): TraceEvent[] => events.filter((event) => event.type === type)
const tokensOf = (usage: { input_tokens: number; output_tokens: number }): number => usage.input_tokens + usage.output_tokens
/** What the job's model calls recorded so far: its spend as the supervisor counts it. */
const spentIn = (events: TraceEvent[]): number =>
  ofType(events, 'llm.call').reduce((sum, event) => sum + tokensOf(event.data.usage as { input_tokens: number; output_tokens: number }), 0)

async function statuses(engine: Engine, jobId: string): Promise<Record<string, string>> {
  const { agents } = await engine.handlers.getTree({ job_id: jobId })
  return Object.fromEntries(agents.map((agent) => [agent.label, agent.status]))
}

/** The root starts A and B in the background and works on itself: three agents making model calls at once. */
const threeAgents = (budgetTokens?: number): ScriptPlan => ({
  root: [
    { tool_calls: [backgroundTask('A', budgetTokens ? { budget_tokens: budgetTokens } : {}), backgroundTask('B')] },
    ...repeat(8, () => listing()),
    awaitTasks,
    awaitTasks,
    complete('root done'),
  ],
  children: { A: [...repeat(8, () => listing()), complete('A done')], B: [...repeat(8, () => listing()), complete('B done')] },
})

describe('budgets that pause', () => {
  it('holds all three running agents at the job cap (paused, agent.wait); setBudget raises it and all complete; totals add up', async () => {
    const rig = makeRig()
    const jobId = rig.start(threeAgents(), { job_token_budget: 6000 })
    // Each agent waits at its next model call once the cap is spent: the root, A and B.
    await expect.poll(() => statuses(rig.engine, jobId), { timeout: 30_000 }).toEqual({ root: 'paused', A: 'paused', B: 'paused' })
    const starts = ofType(rig.events, 'agent.wait').filter((event) => event.data.phase === 'start')
    expect(new Set(starts.map((event) => event.agent_id)).size).toBe(3)
    for (const start of starts) {
      expect(start.data).toMatchObject({ reason: 'job_budget', until: null })
      expect(String(start.data.message)).toMatch(/token budget \(6,000\) is spent/)
    }
    // Nothing was killed, and the overshoot is at most the calls that were in flight.
    expect(ofType(rig.events, 'agent.end')).toHaveLength(0)
    const spentAtPause = spentIn(rig.events)
    const callsSoFar = ofType(rig.events, 'llm.call').length
    expect(spentAtPause).toBeGreaterThanOrEqual(6000)
    expect(spentAtPause).toBeLessThan(6000 + 3 * 2500)

    const raised = await rig.dispatch('setBudget', { job_id: jobId, tokens: 1_000_000 })
    expect(raised).toEqual({ ok: true, value: { job_id: jobId, agent_id: null, tokens: 1_000_000, cost_usd: null } })
    await rig.engine.waitForJob(jobId)
    const { job, agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    expect(job.status).toBe('completed')
    expect(agents.map((agent) => [agent.label, agent.status])).toEqual([
      ['root', 'completed'],
      ['A', 'completed'],
      ['B', 'completed'],
    ])
    // The raise is in the trace, and the job's settings (the toolbar meter) show the new cap.
    const control = ofType(rig.events, 'control').find((event) => event.data.action === 'set_budget')
    expect(control?.data).toMatchObject({
      target: jobId,
      value: { tokens: 1_000_000, cost_usd: null },
      previous: { tokens: 6000, cost_usd: null },
      by: 'user',
    })
    expect(job.settings.job_token_budget).toBe(1_000_000)
    // Every wait ended with the raise, and the agents went on calling the model.
    const ends = ofType(rig.events, 'agent.wait').filter((event) => event.data.phase === 'end')
    expect(ends.map((event) => event.data.outcome)).toEqual(['raised', 'raised', 'raised'])
    expect(ofType(rig.events, 'llm.call').length).toBeGreaterThan(callsSoFar)
    // Totals add up: the job's usage is the sum of its calls and of its agents, each counted once.
    expect(tokensOf(job.usage)).toBe(spentIn(rig.events))
    expect(tokensOf(job.usage)).toBe(agents.reduce((sum, agent) => sum + tokensOf(agent.usage), 0))
    // One warning, at 80 % of the first cap.
    expect(ofType(rig.events, 'budget.warning')).toHaveLength(1)
  }, 90_000)

  it('pauses a branch at the cap its parent gave in task (budget_tokens) while the rest of the tree completes; raising the branch resumes it', async () => {
    const rig = makeRig()
    const jobId = rig.start(threeAgents(1500), { job_token_budget: 1_000_000 })
    // A's branch is spent after a call or two; B and the root go on, B to the end.
    await expect.poll(() => statuses(rig.engine, jobId), { timeout: 30_000 }).toMatchObject({ A: 'paused', B: 'completed' })
    const { agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    const a = agents.find((agent) => agent.label === 'A')!
    const wait = ofType(rig.events, 'agent.wait').find((event) => event.agent_id === a.id)
    expect(wait?.data).toMatchObject({ phase: 'start', reason: 'branch_budget', until: null })
    expect(String(wait?.data.message)).toMatch(/^its branch: token budget \(1,500\) is spent/)
    // The parent's cap was recorded on the child as it started, and shows on its node.
    const given = ofType(rig.events, 'control').find((event) => event.agent_id === a.id && event.data.action === 'set_budget')
    expect(given?.data).toMatchObject({ target: a.id, value: { tokens: 1500, cost_usd: null }, by: 'parent' })
    expect(a.branch_budget).toEqual({ tokens: 1500, cost_usd: null })
    expect(a.status).toBe('paused')

    const raised = await rig.dispatch('setBudget', { agent_id: a.id, tokens: 200_000 })
    expect(raised).toMatchObject({ ok: true, value: { agent_id: a.id, tokens: 200_000 } })
    await rig.engine.waitForJob(jobId)
    expect(await statuses(rig.engine, jobId)).toEqual({ root: 'completed', A: 'completed', B: 'completed' })
    const end = ofType(rig.events, 'agent.wait').find((event) => event.agent_id === a.id && event.data.phase === 'end')
    expect(end?.data).toMatchObject({ reason: 'branch_budget', outcome: 'raised' })
  }, 90_000)

  it('refuses caps not above what is spent, unknown jobs and agents, and a branch cap above what the job has left', async () => {
    const rig = makeRig()
    const jobId = rig.start(threeAgents(), { job_token_budget: 6000 })
    await expect.poll(() => statuses(rig.engine, jobId), { timeout: 30_000 }).toMatchObject({ root: 'paused' })
    const spent = spentIn(rig.events)
    const { agents } = await rig.engine.handlers.getTree({ job_id: jobId })
    const b = agents.find((agent) => agent.label === 'B')!

    expect(await rig.dispatch('setBudget', { job_id: jobId, tokens: spent })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/is not above the [\d,]+ tokens already spent/) },
    })
    expect(await rig.dispatch('setBudget', { job_id: 'job_nobody', tokens: 10_000 })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    expect(await rig.dispatch('setBudget', { agent_id: 'agent_nobody', tokens: 10_000 })).toMatchObject({
      ok: false,
      error: { code: 'not_found' },
    })
    // The job has nothing left: a branch may not be given more than that.
    expect(await rig.dispatch('setBudget', { agent_id: b.id, tokens: tokensOf(b.usage) + 5000 })).toMatchObject({
      ok: false,
      error: { code: 'conflict', message: expect.stringMatching(/at most the 0 tokens the job has left/) },
    })
    // Bad input never reaches a handler: both targets, none, no cap, a cap of 0.
    for (const input of [
      { job_id: jobId, agent_id: b.id, tokens: 10_000 },
      { tokens: 10_000 },
      { job_id: jobId },
      { job_id: jobId, tokens: 0 },
    ]) {
      expect(await rig.dispatch('setBudget', input)).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
    }
    expect(ofType(rig.events, 'control').filter((event) => event.data.action === 'set_budget')).toHaveLength(0)
    // The user stops the job at its cap instead: every paused agent ends, and the job with them.
    rig.engine.supervisor.kill(rig.engine.supervisor.rootAgentId(jobId)!)
    await rig.engine.waitForJob(jobId)
    const ends = ofType(rig.events, 'agent.wait').filter((event) => event.data.phase === 'end')
    expect(ends.length).toBeGreaterThan(0)
    expect(ends.every((event) => event.data.outcome === 'ended')).toBe(true)
  }, 90_000)

  it('a paused agent told to wrap up goes on with its held call and finishes', async () => {
    const rig = makeRig()
    const jobId = rig.start({ root: [...repeat(30, () => listing(20)), complete('wrapped')], children: {} }, { job_token_budget: 4000 })
    await expect.poll(() => statuses(rig.engine, jobId), { timeout: 30_000 }).toEqual({ root: 'paused' })
    rig.engine.supervisor.wrapUp(rig.engine.supervisor.rootAgentId(jobId)!)
    await rig.engine.waitForJob(jobId)
    const end = ofType(rig.events, 'agent.end')[0]!
    // It had two steps to finish in and a scripted model that does not: it ends killed, with its output.
    expect(end.data).toMatchObject({ wrapped_up: true })
    expect(ofType(rig.events, 'agent.wait').map((event) => [event.data.phase, event.data.outcome])).toEqual([
      ['start', undefined],
      ['end', 'ended'],
    ])
  }, 60_000)

  it('a paused agent whose process is killed restarts and pauses again, and goes on once raised', async () => {
    const rig = makeRig()
    const jobId = rig.start({ root: [...repeat(10, () => listing(20)), complete('survived')], children: {} }, { job_token_budget: 4000 })
    await expect.poll(() => statuses(rig.engine, jobId), { timeout: 30_000 }).toEqual({ root: 'paused' })
    const root = rig.engine.supervisor.rootAgentId(jobId)!
    process.kill(rig.engine.supervisor.pidOf(root)!, 'SIGKILL')
    await rig.waitFor((event) => event.type === 'agent.restart')
    // The dead process's held call is dropped with its wait; the new process asks again and waits again.
    await rig.waitFor((event) => event.type === 'agent.wait' && event.data.phase === 'start' && event.seq > restartSeq(rig.events))
    expect(await statuses(rig.engine, jobId)).toEqual({ root: 'paused' })
    await rig.dispatch('setBudget', { job_id: jobId, tokens: 1_000_000 })
    await rig.engine.waitForJob(jobId)
    expect(await statuses(rig.engine, jobId)).toEqual({ root: 'completed' })
    const waits = ofType(rig.events, 'agent.wait').map((event) => [event.data.phase, event.data.outcome ?? null])
    expect(waits).toEqual([
      ['start', null],
      ['end', 'ended'],
      ['start', null],
      ['end', 'raised'],
    ])
  }, 60_000)

  it("a follow-up that raises the caps shows them in the job's settings at once, as a set_budget does", async () => {
    const rig = makeRig()
    const jobId = rig.start(
      { root: [...repeat(10, () => listing(10)), complete('first'), complete('second')], children: {} },
      {
        job_token_budget: 3000,
        on_budget: 'stop',
      },
    )
    await rig.engine.waitForJob(jobId)
    expect((await rig.engine.handlers.getTree({ job_id: jobId })).job.status).toBe('failed')
    await rig.dispatch('followUp', { job_id: jobId, text: 'go on', job_token_budget: 900_000 })
    // Before the job ends again: the row's settings (the toolbar's meter after a reload) hold the raise.
    expect((await rig.engine.handlers.getTree({ job_id: jobId })).job.settings.job_token_budget).toBe(900_000)
    await rig.engine.waitForJob(jobId)
  }, 60_000)
})
