import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { defaultNewJob, type NewJob } from '../api/job-form'
import { once, type RecordedRequest } from '../providers/testing/fake-http'
import { openaiConversations, openaiView, startFakeOpenAI, type FakeOpenAIResponse } from '../providers/testing/fake-openai'
import { getAgents } from '../store/queries'
import { useCleanups } from '../testing/cleanups'
import { waitUntil } from '../testing/processes'
import { handlerEngine } from './testing'

/**
 * resumeJob through the API, on a job whose Arbor process (a real one, testing/job-process.ts)
 * is SIGKILLed mid-job: refused while that process lives, resumed once it is gone, refused when
 * resumed again or when the job is not interrupted. The resumed agents go on as the trace left
 * them: a model call in flight is made again, a command waiting for an approval asks again.
 */
const { cleanups, tempDir } = useCleanups('arbor-resume-job-')
const fixture = fileURLToPath(new URL('../../cli/testing/job-process.ts', import.meta.url))

const finish = (result: string): FakeOpenAIResponse => ({ tool_calls: [{ name: 'attempt_completion', arguments: { result } }] })
const messagesOf = (request: RecordedRequest) => (request.body as { messages: unknown[] }).messages
const opensWith = (marker: string) => (request: RecordedRequest) => openaiView(request).first_user.includes(marker)

function setUp() {
  const dir = tempDir()
  const project = path.join(dir, 'shop')
  mkdirSync(project)
  writeFileSync(path.join(project, 'README.md'), '# Shop\n')
  writeFileSync(path.join(project, 'notes.txt'), 'old notes\n')
  return { dir, project, dbFile: path.join(dir, 'arbor.db') }
}

const jobFor = (url: string, task: string): NewJob => ({
  ...defaultNewJob(),
  task,
  provider: 'openai_compatible',
  model: 'llama3.1',
  base_url: `${url}/v1`,
})

/** The job started in an Arbor process of its own, which the test kills. */
async function jobProcess(dbFile: string, project: string, job: NewJob) {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, dbFile, project, JSON.stringify({ kind: 'agent', job })], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  cleanups.push(async () => {
    child.kill('SIGKILL')
    await exited
  })
  await waitUntil(() => output.includes('"job_id"') || child.exitCode !== null, {
    timeoutMs: 30_000,
    what: 'the job starts',
    describe: () => output,
  })
  const { job_id } = JSON.parse(output.split('\n')[0]!) as { job_id: string }
  return { jobId: job_id, pid: child.pid!, kill: () => (child.kill('SIGKILL'), exited), output: () => output }
}

/** The agents' statuses as another reader of the database sees them. */
function statuses(dbFile: string, jobId: string): string[] {
  if (!existsSync(dbFile)) return []
  const db = new Database(dbFile, { readonly: true, fileMustExist: true })
  try {
    return getAgents(db, jobId).map((agent) => `${agent.label}:${agent.status}`)
  } catch {
    return []
  } finally {
    db.close()
  }
}

describe('resumeJob', () => {
  it('refused while its process lives; then the approval asks again, the cut model call is made again, and it completes', async () => {
    const { project, dbFile } = setUp()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        // Its first call never answers (the process dies while it waits); made again after the resume, it does.
        { match: 'THINKER', turns: [once<FakeOpenAIResponse>({ kind: 'no_answer' }, finish('THOUGHT IT THROUGH'))] },
        {
          match: 'ROOT-TASK',
          turns: [
            {
              tool_calls: [
                { name: 'task', arguments: { description: 'THINKER', subagent_type: 'worker', prompt: 'THINKER: think.' } },
                { name: 'bash', arguments: { command: 'rm notes.txt' } },
              ],
            },
            { tool_calls: [{ name: 'await_tasks', arguments: {} }] },
            finish('ROOT DONE'),
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const owner = await jobProcess(dbFile, project, jobFor(server.url, 'ROOT-TASK: tidy the shop'))
    await waitUntil(
      () =>
        statuses(dbFile, owner.jobId).includes('root:waiting_approval') &&
        server.requests.some((request) => request.finished_at === null && opensWith('THINKER')(request)),
      { timeoutMs: 60_000, what: 'the root waits for an approval and the thinker for its model', describe: owner.output },
    )

    const rig = handlerEngine({ dbFile, project, waitMs: 30_000, cleanups })
    const refused = await rig.dispatch('resumeJob', { job_id: owner.jobId })
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict' } })
    expect(JSON.stringify(refused)).toContain(`is running in another Arbor process (pid ${owner.pid}`)

    await owner.kill()
    const resumed = await rig.dispatch('resumeJob', { job_id: owner.jobId })
    expect(resumed).toMatchObject({ ok: true, value: { job_id: owner.jobId } })
    expect((resumed as { value: { agent_ids: string[] } }).value.agent_ids).toHaveLength(2)
    // Resumed twice: refused, and nothing changes.
    const twice = await rig.dispatch('resumeJob', { job_id: owner.jobId })
    expect(twice).toMatchObject({ ok: false, error: { code: 'conflict' } })
    expect(JSON.stringify(twice)).toContain('is running in this Arbor process already')

    // The command that waited is asked again, not answered "interrupted"; approved, it runs.
    const asked = await rig.waitFor(
      (event) => event.type === 'approval.request' && rig.events.some((each) => each.type === 'control' && each.seq < event.seq),
    )
    expect(asked.data).toMatchObject({ command: 'rm notes.txt' })
    expect(existsSync(path.join(project, 'notes.txt'))).toBe(true)
    expect(await rig.dispatch('decideApproval', { approval_id: asked.data.approval_id as string, decision: 'approved' })).toMatchObject({
      ok: true,
    })
    await rig.engine.waitForJob(owner.jobId)
    const tree = await rig.engine.handlers.getTree({ job_id: owner.jobId })
    expect(tree.job.status).toBe('completed')
    expect(tree.answer).toBe('ROOT DONE')
    expect(existsSync(path.join(project, 'notes.txt'))).toBe(false)

    // The thinker's cut call was made again with the same messages.
    const thinker = server.requests.filter(opensWith('THINKER'))
    expect(thinker).toHaveLength(2)
    expect(JSON.stringify(messagesOf(thinker[1]!))).toBe(JSON.stringify(messagesOf(thinker[0]!)))
    const restart = rig.events.find((event) => event.type === 'agent.restart' && event.agent_id === tree.agents[0]!.id)
    expect(restart?.data).toMatchObject({ cause: 'interrupted', from_step: 1, rerun_calls: [expect.any(String)] })
    // The first request is closed in the trace, and the rerun's answer is the command's real output.
    const decisions = rig.events.filter((event) => event.type === 'approval.decision')
    expect(decisions.map((event) => event.data.by)).toEqual(['auto_deny', 'user'])
  }, 120_000)

  it('a spawn held when the job was interrupted is held again, and starts when spawning resumes', async () => {
    const { project, dbFile } = setUp()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        { match: 'HELD-CHILD', turns: [finish('RAN AFTER ALL')] },
        {
          match: 'ROOT-TASK',
          turns: [
            {
              tool_calls: [{ name: 'task', arguments: { description: 'HELD-CHILD', subagent_type: 'worker', prompt: 'HELD-CHILD: go.' } }],
            },
            { tool_calls: [{ name: 'await_tasks', arguments: {} }] },
            finish('ROOT DONE'),
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const owner = await jobProcess(dbFile, project, { ...jobFor(server.url, 'ROOT-TASK: delegate'), spawn_paused: true })
    await waitUntil(() => statuses(dbFile, owner.jobId).includes('HELD-CHILD:held'), {
      timeoutMs: 60_000,
      what: 'the child is held',
      describe: owner.output,
    })
    await owner.kill()
    const rig = handlerEngine({ dbFile, project, waitMs: 30_000, cleanups })
    expect(await rig.dispatch('resumeJob', { job_id: owner.jobId })).toMatchObject({ ok: true })
    const held = await rig.waitFor((event) => event.type === 'subagent.held')
    const tree = await rig.engine.handlers.getTree({ job_id: owner.jobId })
    expect(tree.job.status).toBe('running')
    expect(tree.agents.find((agent) => agent.id === held.data.child_agent_id)).toMatchObject({ status: 'held', ended_at: null })
    expect(server.requests.filter(opensWith('HELD-CHILD'))).toHaveLength(0)

    expect(await rig.dispatch('setSpawnPaused', { job_id: owner.jobId, paused: false })).toMatchObject({ ok: true })
    await rig.engine.waitForJob(owner.jobId)
    const after = await rig.engine.handlers.getTree({ job_id: owner.jobId })
    expect(after.job.status).toBe('completed')
    expect(after.answer).toBe('ROOT DONE')
    expect(after.agents.map((agent) => agent.status)).toEqual(['completed', 'completed'])
    expect(server.requests.filter(opensWith('HELD-CHILD'))).toHaveLength(1)
  }, 120_000)

  it('a job paused at its spent cap when it was interrupted resumes paused, and goes on once the cap is raised', async () => {
    const { project, dbFile } = setUp()
    const server = await startFakeOpenAI({
      route: openaiConversations([
        {
          match: 'ROOT-TASK',
          turns: [
            { tool_calls: [{ name: 'list_files', arguments: { path: '.' } }], usage: { prompt_tokens: 4000, completion_tokens: 10 } },
            finish('DONE AFTER THE RAISE'),
          ],
        },
      ]),
    })
    cleanups.push(() => server.close())
    const owner = await jobProcess(dbFile, project, {
      ...jobFor(server.url, 'ROOT-TASK: list'),
      job_token_budget: 3000,
      on_budget: 'pause',
    })
    await waitUntil(() => statuses(dbFile, owner.jobId).includes('root:paused'), {
      timeoutMs: 60_000,
      what: 'the root pauses at the cap',
      describe: owner.output,
    })
    await owner.kill()
    const rig = handlerEngine({ dbFile, project, waitMs: 30_000, cleanups })
    expect(await rig.dispatch('resumeJob', { job_id: owner.jobId })).toMatchObject({ ok: true })
    // Its call is made again by the new process, and held again: the cap is still spent.
    const paused = await rig.waitFor((event) => event.type === 'agent.wait' && event.data.phase === 'start')
    expect(paused.data).toMatchObject({ reason: 'job_budget' })
    expect(server.requests).toHaveLength(1)
    expect(await rig.dispatch('setBudget', { job_id: owner.jobId, tokens: 20_000 })).toMatchObject({ ok: true })
    await rig.engine.waitForJob(owner.jobId)
    const tree = await rig.engine.handlers.getTree({ job_id: owner.jobId })
    expect(tree.job.status).toBe('completed')
    expect(tree.answer).toBe('DONE AFTER THE RAISE')
    expect(server.requests).toHaveLength(2)
  }, 120_000)

  it('refuses a job that is not interrupted, and one it does not know', async () => {
    const { project, dbFile } = setUp()
    const server = await startFakeOpenAI({ route: openaiConversations([{ match: 'ROOT-TASK', turns: [finish('ANSWERED')] }]) })
    cleanups.push(() => server.close())
    const rig = handlerEngine({ dbFile, project, cleanups })
    const { job_id } = await rig.engine.handlers.startJob({ kind: 'agent', job: jobFor(server.url, 'ROOT-TASK: quick') })
    await rig.engine.waitForJob(job_id)
    const refused = await rig.dispatch('resumeJob', { job_id })
    expect(refused).toMatchObject({ ok: false, error: { code: 'conflict' } })
    expect(JSON.stringify(refused)).toContain('is completed, not interrupted: only an interrupted job can be resumed')
    expect(await rig.dispatch('resumeJob', { job_id: 'job_nope' })).toMatchObject({ ok: false, error: { code: 'not_found' } })
    expect(await rig.dispatch('resumeJob', { job_id })).toMatchObject({ ok: false })
    expect(await rig.dispatch('resumeJob', { job: job_id })).toMatchObject({ ok: false, error: { code: 'invalid_request' } })
  })
})
