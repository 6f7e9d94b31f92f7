/**
 * The supervisor bench's floor (bench/supervisor.ts): the agent loop without the supervisor, in a
 * process of its own started for it, as every agent is. An agent's process runs a few dozen steps
 * before it ends, so its code is never warm; a loop timed in the bench's own long-lived process
 * is warm, and the difference between the two is the process, not the supervisor. Both are
 * measured and printed; this one is what the supervisor's overhead is taken against.
 *
 * Bundled by the bench as the agent is (esbuild, minified, zod configured first) and forked with
 * a bare `node`: runs `steps` scripted `list_files` steps and a
 * completion on `project`, with the scripted provider in process and every message parsed by the
 * tests' RecordingSupervisor, then sends the wall and CPU time per step from the end of the first
 * model call to the end, the window the supervised run is timed over.
 */
// First, as in the agent's own entry: zod is configured before any schema is made.
import '../src-main/core/agent/zod-config'
import { performance } from 'node:perf_hooks'
import { makeInit, noWait, runScripted } from '../src-main/core/agent/testing'
import { createScriptedProvider } from '../src-main/core/providers/scripted'
import type { Provider } from '../src-main/core/providers/types'
import type { ScriptTurn } from '../src-main/core/trace/model'

/** `steps` model calls that each answer with one `list_files`, then attempt_completion. */
export const listingScript = (steps: number): ScriptTurn[] => [
  ...Array.from({ length: steps }, (): ScriptTurn => ({ tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] })),
  { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'listed' } }] },
]

export interface DirectRun {
  ms: number
  cpuMs: number
}

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** One run of the loop in this process; the bench also runs it in its own, warm. */
export async function runDirect(project: string, steps: number): Promise<DirectRun> {
  const script = listingScript(steps)
  const scripted = createScriptedProvider({ model: 'scripted', script, sleep: noWait })
  let from: { at: number; cpu: number } | null = null
  // Marks the end of the first call, as the supervised run's first stored llm.call does.
  const provider: Provider = {
    kind: scripted.kind,
    model: scripted.model,
    async *stream(request) {
      yield* scripted.stream(request)
      from ??= { at: performance.now(), cpu: cpuMs() }
    },
  }
  const { outcome } = await runScripted(makeInit(project, script), { provider })
  if (outcome.status !== 'completed' || !from) throw new Error(`the direct run ended ${outcome.status}`)
  const start: { at: number; cpu: number } = from
  return { ms: (performance.now() - start.at) / steps, cpuMs: (cpuMs() - start.cpu) / steps }
}

if (process.argv[1] === import.meta.filename) {
  const [project, steps] = process.argv.slice(2)
  if (!project || !process.send) throw new Error('usage: forked by bench/supervisor.ts with <project> <steps>')
  const run = await runDirect(project, Number(steps))
  process.send(run, () => process.exit(0))
}
