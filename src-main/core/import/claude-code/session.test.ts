import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../../store/database'
import { exportJobJsonl } from '../../store/export'
import { importTraceFile } from '../import-job'
import { getAgents, getEvents, getJob } from '../../store/queries'
import { useTempDir } from '../../store/testing/temp-dir'
import { createRedactor, redactedMark } from '../../secrets/redact'
import type { AgentNode } from '../../trace/model'
import type { Usage } from '../../trace/usage'

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url))
const inline = path.join(fixtures, 'v1-0-inline/1c4f7a2d-8e3b-4d6c-b9a1-5f0e2c8d7a64.jsonl')
const beside = path.join(fixtures, 'v2-0-beside/2b7e1d90-5c3a-4f8e-a6d2-9e41c0b7f358.jsonl')
const subagents = path.join(fixtures, 'v2-1-subagents/3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13.jsonl')

const usage = (input_tokens: number, output_tokens: number, cache_read_tokens: number, cache_write_tokens: number): Usage => ({
  input_tokens,
  output_tokens,
  cache_read_tokens,
  cache_write_tokens,
  reasoning_tokens: 0,
})

/** The tree as nested labels with status: what a user sees in the graph. */
function shape(agents: AgentNode[]): unknown {
  const children = (id: string | null): unknown[] =>
    agents
      .filter((agent) => agent.parent_id === id)
      .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.label.localeCompare(b.label))
      .map((agent) => ({ [`${agent.label} (${agent.profile}, ${agent.status})`]: children(agent.id) }))
  return children(null)
}

const byLabel = (agents: AgentNode[], label: string): AgentNode => {
  const found = agents.find((agent) => agent.label === label)
  if (!found) throw new Error(`no agent labelled ${label}`)
  return found
}

describe('Claude Code sessions, one per layout (synthetic, written for these tests)', () => {
  const tempDir = useTempDir()
  const importInto = (file: string, options = {}) => {
    const db = openDatabase(path.join(tempDir(), `viewer-${Math.random().toString(36).slice(2)}.db`))
    return { db, result: importTraceFile(db, file, options) }
  }

  it('1.0.x inline sidechains: links each sidechain to its Task by prompt, nested too; a failed Task is a failed child', () => {
    const { db, result } = importInto(inline)
    expect(result).toMatchObject({ job_id: 'job_cc_1c4f7a2d-8e3b-4d6c-b9a1-5f0e2c8d7a64', existing: false, format: 'claude-code' })
    expect(result.skipped).toEqual({ 'some-future-type': 1, malformed: 1 })
    const agents = getAgents(db, result.job_id)
    expect(agents).toHaveLength(5)
    expect(shape(agents)).toEqual([
      {
        'root (claude-code, completed)': [
          { 'Check prices (general-purpose, completed)': [{ 'Deep check (general-purpose, completed)': [] }] },
          { 'Check stock (general-purpose, completed)': [] },
          { 'Oops (general-purpose, failed)': [] },
        ],
      },
    ])
    // By hand: input = input + cache_read + cache_creation of each message.id, counted once.
    expect(byLabel(agents, 'root').usage).toEqual(usage(1001 + 1122, 50 + 9, 1000 + 1100, 20))
    expect(byLabel(agents, 'Check prices').usage).toEqual(usage(42 + 51, 5 + 3, 50, 40))
    expect(byLabel(agents, 'Check stock').usage).toEqual(usage(3, 4, 0, 0))
    expect(byLabel(agents, 'Deep check').usage).toEqual(usage(11, 8, 10, 0))
    expect(getJob(db, result.job_id)?.usage).toEqual(usage(2230, 79, 2160, 60))
    const failed = byLabel(agents, 'Oops')
    expect(failed.terminal_reason).toBe('crashed')
    const end = getEvents(db, failed.id).find((event) => event.type === 'agent.end')
    expect(end?.type === 'agent.end' && end.data.result).toContain('The required parameter `prompt` is missing')
    // The job's project is the session's cwd; the root's task is its first prompt.
    expect(getJob(db, result.job_id)).toMatchObject({
      project: '/home/dev/shop',
      task: 'Review the shop: prices and stock.',
      imported: true,
    })
  })

  it("2.0.x agent files beside the session: linked by agentId, other sessions' agent files left out", () => {
    const { db, result } = importInto(beside)
    expect(result.skipped).toEqual({ summary: 1, progress: 1, malformed: 1 })
    const agents = getAgents(db, result.job_id)
    expect(shape(agents)).toEqual([
      {
        'root (claude-code, completed)': [
          { 'Find the bug (general-purpose, completed)': [{ 'Read the cart (Explore, completed)': [] }] },
          { 'Broken call (general-purpose, failed)': [] },
        ],
      },
    ])
    expect(byLabel(agents, 'Find the bug').usage).toEqual(usage(52 + 63, 9 + 14, 110, 0))
    expect(byLabel(agents, 'Read the cart').model).toBe('claude-haiku-4-5-20251001')
    // agent-99999999.jsonl (1000 input tokens) is another session's and must not count.
    expect(getJob(db, result.job_id)?.usage).toEqual(usage(540, 70, 310, 210))
  })

  it('2.1.x subagents/ with meta.json: parallel calls answered out of order, a nested agent, a background agent, a failed call', () => {
    const { db, result } = importInto(subagents)
    expect(result.skipped).toEqual({ 'permission-mode': 1, 'weird-new-entry': 1, malformed: 1, system: 1 })
    const agents = getAgents(db, result.job_id)
    expect(agents).toHaveLength(6)
    expect(shape(agents)).toEqual([
      {
        'root (claude-code, completed)': [
          { 'Map the code (Explore, completed)': [{ 'Read the config (general-purpose, completed)': [] }] },
          { 'List test files (general-purpose, completed)': [] },
          { 'Use a missing agent (nope, failed)': [] },
          { 'Watch the tests (general-purpose, completed)': [] },
        ],
      },
    ])
    const root = byLabel(agents, 'root')
    expect(root.usage).toEqual(usage(160 + 320 + 415, 40 + 15 + 7, 800, 60))
    expect(root.steps).toBe(3)
    expect(root.model).toBe('claude-sonnet-4-5-20250929')
    // Sonnet 4.5 at $3 / $15 per million, cache reads 0.1×, writes 1.25× input: 847.5 + 375 + 277.5 micro-dollars.
    expect(root.cost_usd).toBeCloseTo(0.0015, 10)
    expect(byLabel(agents, 'Map the code').usage).toEqual(usage(51 + 42, 8 + 12, 60, 30))
    expect(byLabel(agents, 'Read the config').usage).toEqual(usage(103 + 109, 20 + 6, 100, 105))
    expect(byLabel(agents, 'Watch the tests').usage).toEqual(usage(11 + 21, 4 + 5, 30, 0))
    expect(getJob(db, result.job_id)?.usage).toEqual(usage(1239, 126, 990, 195))

    // The background agent ends where its <task-notification> arrives, with its result.
    const rootEvents = getEvents(db, root.id)
    const background = byLabel(agents, 'Watch the tests')
    const backgroundEnd = rootEvents.find((event) => event.type === 'subagent.end' && event.data.child_agent_id === background.id)
    expect(backgroundEnd?.type === 'subagent.end' && backgroundEnd.data.envelope.result).toBe('All 12 tests pass.')
    const notification = rootEvents.find((event) => event.type === 'message' && event.data.content.includes('<task-notification>'))
    expect(backgroundEnd!.seq).toBeLessThan(notification!.seq)
    // Out of order: the second call's child ended first, and each subagent.end follows its child's agent.end.
    const ends = rootEvents
      .filter((event) => event.type === 'subagent.end')
      .map((event) => event.type === 'subagent.end' && event.data.description)
    expect(ends.slice(0, 3)).toEqual(['Use a missing agent', 'List test files', 'Map the code'])
    for (const agent of agents.filter((other) => other.parent_id === root.id)) {
      const childEnd = getEvents(db, agent.id).find((event) => event.type === 'agent.end')!
      const parentEnd = rootEvents.find((event) => event.type === 'subagent.end' && event.data.child_agent_id === agent.id)!
      expect(childEnd.seq).toBeLessThan(parentEnd.seq)
    }

    // The inspector's material: the subagent's messages, model calls and tool calls with results.
    const nested = getEvents(db, byLabel(agents, 'Read the config').id)
    expect(nested.map((event) => event.type)).toEqual([
      'agent.start',
      'message',
      'llm.call',
      'message',
      'tool.call',
      'tool.result',
      'message',
      'llm.call',
      'message',
      'agent.end',
    ])
    expect(nested.find((event) => event.type === 'tool.call')?.data).toMatchObject({
      name: 'Read',
      arguments: { file_path: '/home/dev/shop/package.json' },
    })
    expect(nested.find((event) => event.type === 'tool.result')?.data).toMatchObject({
      ok: true,
      output: '{"name":"shop","type":"module"}',
    })
    // The child's result is its answer, without Claude Code's `agentId: …` trailer of the parent's tool result.
    const nestedEnd = nested.at(-1)
    expect(nestedEnd?.type === 'agent.end' && nestedEnd.data.result).toBe('ESM package named shop.')
    // One API response written as several lines is one llm.call and one assistant message.
    const first = rootEvents.filter((event) => event.type === 'llm.call')
    expect(first).toHaveLength(3)
    const reply = rootEvents.find((event) => event.type === 'message' && event.data.role === 'assistant')
    expect(reply?.type === 'message' && reply.data.tool_calls?.map((call) => call.id)).toEqual(['toolu_21_A', 'toolu_21_B', 'toolu_21_F'])
  })

  it('the main file alone (an upload): each call is a child from its result; transcripts and their own children are missing', () => {
    const alone = path.join(tempDir(), 'trace.jsonl')
    writeFileSync(alone, readFileSync(subagents))
    const { db, result } = importInto(alone)
    const agents = getAgents(db, result.job_id)
    expect(shape(agents)).toEqual([
      {
        'root (claude-code, completed)': [
          { 'Map the code (Explore, completed)': [] },
          { 'List test files (general-purpose, completed)': [] },
          { 'Use a missing agent (nope, failed)': [] },
          { 'Watch the tests (general-purpose, completed)': [] },
        ],
      },
    ])
    expect(getJob(db, result.job_id)?.usage).toEqual(usage(895, 62, 800, 60))
  })

  it('a subagent file no call claims hangs under its meta.json parentAgentId', () => {
    const dir = path.join(tempDir(), 'orphan')
    cpSync(path.dirname(subagents), dir, { recursive: true })
    const folder = path.join(dir, '3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13/subagents')
    const line = (fields: Record<string, unknown>) =>
      JSON.stringify({
        parentUuid: null,
        isSidechain: true,
        sessionId: '3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13',
        agentId: 'e5e5e5e5e5e5e5e5e',
        ...fields,
      })
    writeFileSync(
      path.join(folder, 'agent-e5e5e5e5e5e5e5e5e.jsonl'),
      [
        line({
          type: 'user',
          uuid: 'u1',
          timestamp: '2025-11-03T09:00:05.000Z',
          message: { role: 'user', content: 'Check the lockfile.' },
        }),
        line({
          type: 'assistant',
          uuid: 'u2',
          parentUuid: 'u1',
          timestamp: '2025-11-03T09:00:06.000Z',
          message: {
            id: 'msg_orphan',
            role: 'assistant',
            model: 'claude-haiku-4-5-20251001',
            content: [{ type: 'text', text: 'Lockfile is fine.' }],
            usage: { input_tokens: 2, output_tokens: 3 },
          },
        }),
      ].join('\n'),
    )
    writeFileSync(
      path.join(folder, 'agent-e5e5e5e5e5e5e5e5e.meta.json'),
      JSON.stringify({ agentType: 'general-purpose', description: 'Check the lockfile', parentAgentId: 'a1b3d5f7a9c1e3b5d' }),
    )
    const { db, result } = importInto(path.join(dir, '3a0c5e7d-21f4-4b1a-9c55-0e2d7f6a8b13.jsonl'))
    const agents = getAgents(db, result.job_id)
    const orphan = byLabel(agents, 'Check the lockfile')
    expect(orphan.parent_id).toBe(byLabel(agents, 'Map the code').id)
    expect(orphan).toMatchObject({ depth: 2, status: 'completed', usage: usage(2, 3, 0, 0) })
    expect(getJob(db, result.job_id)?.usage).toEqual(usage(1241, 129, 990, 195))
  })

  it('importing the same session again says it is already there and writes nothing', () => {
    const db = openDatabase(path.join(tempDir(), 'twice.db'))
    const first = importTraceFile(db, subagents)
    expect(first.events).toBeGreaterThan(0)
    expect(importTraceFile(db, subagents)).toMatchObject({ job_id: first.job_id, existing: true, events: 0 })
  })

  it('round trip: export the imported session as Arbor JSONL, import that into a fresh database: same tree and totals', async () => {
    for (const file of [inline, beside, subagents]) {
      const { db, result } = importInto(file)
      const exported = path.join(tempDir(), `${result.job_id}.jsonl`)
      await exportJobJsonl(db, result.job_id, exported)
      const fresh = openDatabase(path.join(tempDir(), `fresh-${result.job_id}.db`))
      const again = importTraceFile(fresh, exported)
      expect(again).toEqual({ job_id: result.job_id, events: result.events, existing: false })
      expect(getAgents(fresh, result.job_id)).toEqual(getAgents(db, result.job_id))
      expect(getJob(fresh, result.job_id)).toEqual(getJob(db, result.job_id))
    }
  })

  it('known keys in the session are replaced before anything is stored', () => {
    const dir = tempDir()
    const copy = path.join(dir, 'keyed.jsonl')
    const key = 'sk-ant-api03-EXAMPLEKEY0123456789'
    writeFileSync(copy, readFileSync(subagents, 'utf8').replace('Survey the shop repo', `Survey the shop repo (key ${key})`))
    const db = openDatabase(path.join(dir, 'keyed.db'))
    const result = importTraceFile(db, copy, { redactor: createRedactor([key]) })
    const root = getAgents(db, result.job_id).find((agent) => agent.depth === 0)!
    const stored = JSON.stringify(getEvents(db, root.id)) + JSON.stringify(getJob(db, result.job_id))
    expect(stored).not.toContain(key)
    expect(stored).toContain(redactedMark)
  })

  it('a session whose agent ids belong to another job here is refused whole: nothing of it is stored', async () => {
    const { db, result } = importInto(subagents)
    const exported = path.join(tempDir(), 'renamed.jsonl')
    await exportJobJsonl(db, result.job_id, exported)
    // The same agents under another job id, imported first into a fresh database.
    writeFileSync(exported, readFileSync(exported, 'utf8').split(result.job_id).join('job_other'))
    const fresh = openDatabase(path.join(tempDir(), 'conflict.db'))
    importTraceFile(fresh, exported)
    expect(() => importTraceFile(fresh, subagents)).toThrow(/already belongs to job job_other/)
    expect(getJob(fresh, result.job_id)).toBeUndefined()
    expect(fresh.prepare('SELECT COUNT(*) AS n FROM events WHERE job_id = ?').get(result.job_id)).toEqual({ n: 0 })
  })

  it('a file that is neither format is refused with what was found, and nothing is stored', () => {
    const dir = tempDir()
    const other = path.join(dir, 'other.jsonl')
    writeFileSync(other, '\n{"kind":"log","msg":"hello"}\n')
    const db = openDatabase(path.join(dir, 'neither.db'))
    expect(() => importTraceFile(db, other)).toThrow(
      /neither an Arbor trace .* nor a Claude Code session: line 2 is an object without a type/,
    )
    // What kind of line, never its text: the file may be anything.
    writeFileSync(other, '{"type":"SECRET-TYPE-VALUE"}\n')
    expect(() => importTraceFile(db, other)).toThrow(/line 1 is an object of another type$/)
    const onlyAgent = path.join(fixtures, 'v2-0-beside/agent-5e6f7a8b.jsonl')
    expect(() => importTraceFile(db, onlyAgent)).toThrow(/holds only a subagent's lines/)
    expect(db.prepare('SELECT COUNT(*) AS n FROM jobs').get()).toEqual({ n: 0 })
  })
})

/** Real sessions recorded by other projects (../shared/fixtures/README.md §3). */
const shared = fileURLToPath(new URL('../../../../../shared/fixtures/', import.meta.url))
const present = existsSync(path.join(shared, 'claude-code-session-v2-1-17-subagent.jsonl'))

/** The expected totals, computed apart from the importer: each message.id once, each count its largest line's. */
function expectedUsage(files: string[]): Usage {
  const byMessage = new Map<string, Record<string, number>>()
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line.trim() === '') continue
      const entry = JSON.parse(line)
      const id = entry.message?.id
      if (entry.type !== 'assistant' || !id || !entry.message.usage) continue
      const known = byMessage.get(id) ?? {}
      for (const [key, value] of Object.entries(entry.message.usage))
        if (typeof value === 'number') known[key] = Math.max(known[key] ?? 0, value)
      byMessage.set(id, known)
    }
  }
  const total = usage(0, 0, 0, 0)
  for (const counts of byMessage.values()) {
    const read = counts.cache_read_input_tokens ?? 0
    const write = counts.cache_creation_input_tokens ?? 0
    total.input_tokens += (counts.input_tokens ?? 0) + read + write
    total.output_tokens += counts.output_tokens ?? 0
    total.cache_read_tokens += read
    total.cache_write_tokens += write
  }
  return total
}

const sessionFiles = (main: string): string[] => {
  const folder = path.join(shared, path.basename(main, '.jsonl'), 'subagents')
  const agents = existsSync(folder)
    ? readdirSync(folder)
        .filter((name) => name.endsWith('.jsonl'))
        .map((name) => path.join(folder, name))
    : []
  return [path.join(shared, main), ...agents]
}

describe.skipIf(!present)(
  'the real Claude Code sessions of ../shared/fixtures (skipped: ../shared/fixtures is not beside this checkout)',
  () => {
    const tempDir = useTempDir()
    const cases = [
      {
        main: 'claude-code-session-v1-0-108-inline-sidechains.jsonl',
        subagents: 3,
        failed: 1,
        usage: usage(372135, 3629, 324259, 47747),
        skipped: {},
      },
      {
        main: 'claude-code-session-v2-1-17-subagent.jsonl',
        subagents: 1,
        failed: 0,
        usage: usage(328209, 20, 272977, 50764),
        skipped: { 'queue-operation': 1, progress: 1 },
      },
      {
        main: 'claude-code-session-v2-1-114-parallel-agents.jsonl',
        subagents: 3,
        failed: 0,
        usage: usage(2049576, 35928, 1731207, 315876),
        skipped: { attachment: 33, 'permission-mode': 5, 'last-prompt': 4, 'file-history-snapshot': 1, system: 3 },
      },
    ]
    for (const testCase of cases) {
      it(`${testCase.main}: ${testCase.subagents} subagents, usage once per message.id`, () => {
        // Read in place (the fixtures are read-only); the database is the test's own.
        const db = openDatabase(path.join(tempDir(), 'viewer.db'))
        const result = importTraceFile(db, path.join(shared, testCase.main))
        const agents = getAgents(db, result.job_id)
        expect(agents.filter((agent) => agent.depth > 0)).toHaveLength(testCase.subagents)
        expect(agents.filter((agent) => agent.status === 'failed')).toHaveLength(testCase.failed)
        const job = getJob(db, result.job_id)!
        expect(job.usage).toEqual(expectedUsage(sessionFiles(testCase.main)))
        expect(job.usage).toEqual(testCase.usage)
        expect(result.skipped).toEqual(testCase.skipped)
        // Every subagent has its transcript: a model and at least one model call.
        for (const agent of agents.filter((other) => other.depth > 0 && other.status !== 'failed')) {
          expect(agent.model, agent.label).not.toBeNull()
          expect(agent.steps, agent.label).toBeGreaterThan(0)
        }
      })
    }
  },
)
