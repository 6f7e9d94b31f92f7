import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkExploreResult } from './explore-contract'
import { makeInit, runScripted } from './testing'

const valid = {
  status: 'completed',
  summary: 'Tests use vitest.',
  findings: ['vitest.config.ts sets the include globs'],
  evidence: ['vitest.config.ts:5'],
  unresolved_questions: [],
}
const json = (value: unknown) => JSON.stringify(value)

let project: string
beforeAll(async () => {
  project = await mkdtemp(join(tmpdir(), 'arbor-explore-'))
})
afterAll(async () => {
  await rm(project, { recursive: true, force: true })
})
const explore = (...texts: string[]) =>
  makeInit(
    project,
    texts.map((text) => ({ text })),
    { name: 'explore' },
  )

describe('checkExploreResult', () => {
  it('accepts the contract object', () => {
    expect(checkExploreResult(` ${json(valid)}\n`)).toEqual({ ok: true, result: valid })
  })
  it('refuses Markdown fences, non-JSON, non-objects and missing fields with a reason', () => {
    expect(checkExploreResult('```json\n' + json(valid) + '\n```')).toEqual({
      ok: false,
      reason: 'the result must not use Markdown fences',
    })
    expect(checkExploreResult('I found it')).toMatchObject({ ok: false, reason: expect.stringMatching(/not valid JSON/) })
    expect(checkExploreResult('[1]')).toEqual({ ok: false, reason: 'the result must be one JSON object' })
    const { summary: _summary, ...noSummary } = valid
    expect(checkExploreResult(json(noSummary))).toMatchObject({ ok: false, reason: expect.stringMatching(/^summary: /) })
    expect(checkExploreResult(json({ ...valid, summary: '  ' }))).toMatchObject({ ok: false, reason: 'summary must be a non-empty string' })
    expect(checkExploreResult(json({ ...valid, status: 'done' }))).toMatchObject({ ok: false, reason: expect.stringMatching(/^status: /) })
  })
})

describe('the explore contract in the loop', () => {
  it('completes with the parsed object and its summary', async () => {
    const { outcome } = await runScripted(explore(json(valid)))
    expect(outcome).toMatchObject({ status: 'completed', terminal_reason: 'completed', result: valid, summary: 'Tests use vitest.' })
  })

  it('reports partial when the result says partial', async () => {
    const { outcome } = await runScripted(explore(json({ ...valid, status: 'partial' })))
    expect(outcome).toMatchObject({ status: 'partial', terminal_reason: 'completed' })
  })

  it('sends FAIL for a fenced result and accepts the corrected answer', async () => {
    const { outcome, supervisor, requests } = await runScripted(explore('```json\n' + json(valid) + '\n```', json(valid)))
    const fails = supervisor.data('message').filter((message) => String(message.content).startsWith('FAIL: '))
    expect(fails).toHaveLength(1)
    expect(fails[0]).toMatchObject({ role: 'user', content: expect.stringMatching(/^FAIL: the result must not use Markdown fences/) })
    expect(outcome).toMatchObject({ status: 'completed', result: valid })
    expect(requests).toHaveLength(2)
  })

  it('sends FAIL for a missing summary, also through attempt_completion', async () => {
    const { summary: _summary, ...noSummary } = valid
    const init = makeInit(
      project,
      [
        { tool_calls: [{ name: 'attempt_completion', arguments: { result: json(noSummary) } }] },
        { tool_calls: [{ name: 'attempt_completion', arguments: { result: json(valid) } }] },
      ],
      { name: 'explore' },
    )
    const { outcome, supervisor } = await runScripted(init)
    const fails = supervisor.data('message').filter((message) => String(message.content).startsWith('FAIL: summary'))
    expect(fails).toHaveLength(1)
    expect(outcome).toMatchObject({ status: 'completed', result: valid })
  })

  it('fails with invalid_result after two FAILs', async () => {
    const { outcome, supervisor, requests } = await runScripted(explore('nope', 'still nope', '```{}```', json(valid)))
    expect(outcome).toMatchObject({ status: 'failed', terminal_reason: 'invalid_result', result: '```{}```' })
    expect(requests).toHaveLength(3)
    expect(supervisor.data('message').filter((message) => String(message.content).startsWith('FAIL: '))).toHaveLength(2)
  })
})
