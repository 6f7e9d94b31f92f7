import { describe, expect, it } from 'vitest'
import { eventFactory } from '../test-support/events'
import { describeEvent, projectInstructionsOf, projectInstructionsText } from './describe-event'

describe('describeEvent', () => {
  it('names the project instructions the root started with', () => {
    const event = eventFactory()
    const start = event('agent.start', 'root', {
      profile: 'general',
      model: 'gpt-4o',
      project_instructions: { file: 'AGENTS.md', bytes: 1234, truncated: false },
    })
    expect(describeEvent(start)).toEqual({
      title: 'start',
      summary: 'general · gpt-4o · Project instructions: AGENTS.md (1234 bytes)',
      tone: 'agent',
    })
  })

  it('says when the instructions were cut', () => {
    const start = eventFactory()('agent.start', 'root', {
      profile: 'general',
      project_instructions: { file: 'CLAUDE.md', bytes: 40000, truncated: true },
    })
    const info = projectInstructionsOf(start)
    expect(info).toEqual({ file: 'CLAUDE.md', bytes: 40000, truncated: true })
    expect(projectInstructionsText(info!)).toBe('Project instructions: CLAUDE.md (40000 bytes, truncated)')
  })

  it('leaves a start without instructions as it was', () => {
    const event = eventFactory()
    const start = event('agent.start', 'child', { profile: 'explore', model: 'scripted' }, { parent_id: 'root', depth: 1 })
    expect(describeEvent(start).summary).toBe('explore · scripted')
    expect(projectInstructionsOf(start)).toBeNull()
    expect(projectInstructionsOf(event('llm.call', 'root', { project_instructions: { file: 'AGENTS.md' } }))).toBeNull()
  })

  it('tells a resume after an interruption from a crash restart, and names the job resumed', () => {
    const event = eventFactory()
    expect(describeEvent(event('agent.restart', 'root', { cause: 'interrupted', from_step: 3, rerun_calls: ['c1'] }))).toEqual({
      title: 'resumed',
      summary: 'the job was interrupted · goes on after step 3 · asks again for 1 approval',
      tone: 'warn',
    })
    expect(
      describeEvent(event('agent.restart', 'root', { cause: 'crashed', from_step: 2, signal: 'SIGKILL', restart: 1, restarts_allowed: 1 }))
        .title,
    ).toBe('restarted')
    expect(describeEvent(event('control', null, { action: 'resume_job', target: 'job-1', value: true, by: 'user' }))).toEqual({
      title: 'job resumed',
      summary: 'after it was interrupted, by user',
      tone: 'warn',
    })
  })

  it('says how many files a revert put back, and marks its file changes', () => {
    const event = eventFactory()
    const value = { subtree: true, files: ['a.ts', 'b.ts'] }
    expect(describeEvent(event('control', 'root', { action: 'revert_changes', target: 'root', value, by: 'user' }))).toEqual({
      title: 'changes reverted',
      summary: '2 files put back, its subtree’s too · by user',
      tone: 'warn',
    })
    const change = {
      path: 'a.ts',
      kind: 'modified',
      by_tool_call: null,
      bytes_before: 3,
      bytes_after: 1,
      hash_before: 'h1',
      hash_after: 'h0',
      content_stored: true,
    } as const
    expect(describeEvent(event('file.change', 'root', { ...change, tool: 'revert' })).summary).toBe('a.ts · by revert')
    expect(describeEvent(event('file.change', 'root', { ...change, tool: 'edit_file' })).summary).toBe('a.ts')
  })

  it('says who asked a wrap-up, and how many steps the agent has once told', () => {
    const event = eventFactory()
    const asked = { by: 'user', requested_at: '2025-03-01T10:00:00.000Z' }
    expect(describeEvent(event('agent.wrap_up', 'root', { ...asked, phase: 'requested', target: 'root' })).summary).toBe(
      'asked by you · told at its next step',
    )
    const child = event(
      'agent.wrap_up',
      'agent_child',
      { ...asked, phase: 'requested', target: 'agent_root00000' },
      { parent_id: 'root', depth: 1 },
    )
    expect(describeEvent(child).summary).toMatch(/^asked by you, with \S+ · told at its next step$/)
    const told = event('agent.wrap_up', 'root', { ...asked, phase: 'delivered', target: 'root', steps_allowed: 2 })
    expect(describeEvent(told)).toEqual({ title: 'wrap up', summary: 'told at its step · 2 steps left to finish', tone: 'warn' })
  })

  it('sums up a model call and a budget warning', () => {
    const event = eventFactory()
    const call = event('llm.call', 'root', {
      model: 'gpt-4o',
      usage: { input_tokens: 1200, output_tokens: 80, cache_read_tokens: 1000 },
      cost_usd: 0.0042,
      duration_ms: 1500,
      finish_reason: 'stop',
    })
    expect(describeEvent(call).summary).toBe('gpt-4o · in 1.2k · out 80 · cached 1.0k · $0.0042 · 1.5s · stop')
    expect(describeEvent(event('budget.warning', null, { share: 0.83 })).summary).toBe('83% of the job budget used')
  })

  it("tells Arbor's messages apart: background results, and a refused finish", () => {
    const event = eventFactory()
    const delivery = event('message', 'root', { role: 'user', content: '…', by: 'arbor', background_results: ['agent_a', 'agent_b'] })
    expect(describeEvent(delivery)).toEqual({ title: 'arbor', summary: 'results of 2 background subagents', tone: 'agent' })
    const refusal = event('message', 'root', { role: 'user', content: '[Arbor] Not finished: …', by: 'arbor' })
    expect(describeEvent(refusal)).toEqual({ title: 'arbor', summary: 'finish refused: background subagents still run', tone: 'warn' })
    expect(describeEvent(event('message', 'root', { role: 'user', content: 'task' })).title).toBe('user')
    const spawn = event('subagent.request', 'root', {
      description: 'HELPER',
      profile: 'general',
      child_agent_id: 'agent_h',
      background: true,
    })
    expect(describeEvent(spawn).summary).toBe('HELPER · general · background')
  })
})

describe("a held spawn's edited prompt", () => {
  it('reads as an edit by the user, not as a raw control value', () => {
    const edit = eventFactory()('control', 'child', {
      action: 'edit_spawn',
      target: 'child',
      value: 'only src/',
      previous: 'all',
      by: 'user',
    })
    expect(describeEvent(edit)).toEqual({ title: 'prompt edited', summary: 'by user', tone: 'warn' })
  })
})

describe('a set_budget', () => {
  it("reads as the job's new caps, or a branch's, with the old ones and who set them", () => {
    const event = eventFactory('job-1')
    const job = event('control', null, {
      action: 'set_budget',
      target: 'job-1',
      value: { tokens: 100_000, cost_usd: null },
      previous: { tokens: 5000, cost_usd: null },
      by: 'user',
    })
    expect(describeEvent(job)).toEqual({
      title: 'budget',
      summary: "the job's budget set to 100k tok · was 5.0k tok · by user",
      tone: 'warn',
    })
    const branch = event('control', 'child', {
      action: 'set_budget',
      target: 'child',
      value: { tokens: null, cost_usd: 2 },
      previous: null,
      by: 'parent',
    })
    expect(describeEvent(branch).summary).toBe('branch budget set to $2.000 · was none · by parent')
  })
})
