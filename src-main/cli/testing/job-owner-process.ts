/**
 * A test fixture, run as its own process: `node --import tsx job-owner-process.ts DB PROJECT`.
 * Opens DB through the CLI's engine (as `arbor run` does) and starts a job that stays running:
 * the root delegates two children with room for one, so one child runs a very slow turn and the
 * other waits queued. When both are stored it prints one JSON line (job, agents, pids) and keeps
 * the job running until it is killed; SIGTERM closes the engine.
 */
import { defaultSettings } from '../../core/engine'
import { cliEngine } from '../commands/engine'

const [dbFile, projectDir] = process.argv.slice(2)
if (!dbFile || !projectDir) throw new Error('usage: job-owner-process.ts DB PROJECT')

const slowChild = { delay_ms: 600_000, tool_calls: [{ name: 'attempt_completion', arguments: { result: 'never reached' } }] }
const taskCall = (description: string) => ({
  name: 'task',
  arguments: { description, subagent_type: 'explore', prompt: `Do: ${description}` },
})

const { engine } = cliEngine(dbFile, projectDir)
process.once('SIGTERM', () => void engine.close().finally(() => process.exit(0)))

const jobId = engine.supervisor.startJob({
  project: projectDir,
  task: 'Stay running until killed',
  settings: defaultSettings({
    max_depth: 1,
    max_concurrent_children: 1,
    script: {
      root: [{ tool_calls: [taskCall('Slow A'), taskCall('Slow B')] }],
      children: { 'Slow A': [slowChild], 'Slow B': [slowChild] },
    },
  }),
})

// The job's first events are still queued in the writer: none is missed.
let running: string | null = null
let queued: string | null = null
const stop = engine.subscribe(({ events }) => {
  for (const event of events) {
    if (event.type === 'agent.start' && event.depth === 1) running = event.agent_id
    if (event.type === 'subagent.queued') queued = event.data.child_agent_id as string
  }
  if (!running || !queued) return
  stop()
  const root = engine.supervisor.rootAgentId(jobId)!
  const pids = [engine.supervisor.pidOf(root), engine.supervisor.pidOf(running)]
  process.stdout.write(`${JSON.stringify({ job_id: jobId, agents: { root, running, queued }, agent_pids: pids, pid: process.pid })}\n`)
})
