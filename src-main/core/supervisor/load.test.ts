import { describe, expect, it } from 'vitest'
import { useCleanups } from '../testing/cleanups'
import { countLines, defaultLoadShape, runLoadJob, scriptedToolCalls, storedJob } from '../testing/load-job'

/**
 * Nothing is lost under load: 200 real agent processes, 50 at a time, write about 100,000 events
 * into a real SQLite file. Every tool call the script asked for is stored with its result, the
 * export has every stored event, no agent crashed or lost its last messages, and usage adds up
 * across llm.call, agent.end and job.end. Duration and peak RSS are printed, not asserted.
 */
const { tempDir } = useCleanups('arbor-load-')

describe('a job of 200 agents at concurrency 50', () => {
  it('stores every event it was asked for, exports them all, and every child completes', { timeout: 360_000 }, async () => {
    const shape = defaultLoadShape
    const run = await runLoadJob(tempDir(), shape)
    const { heard } = run
    const stored = storedJob(run.dbFile, run.jobId)
    const seconds = run.durationMs / 1000
    console.log(
      `load: ${shape.agents} agents at concurrency ${shape.concurrency}, ${stored.total.toLocaleString('en-US')} events in ${seconds.toFixed(1)} s ` +
        `(${Math.round(stored.total / seconds).toLocaleString('en-US')} events/s); main process: peak RSS ${(run.peakRssBytes / 2 ** 20).toFixed(0)} MiB, ` +
        `CPU ${(run.mainCpuMs / 1000).toFixed(1)} s`,
    )

    // Every child ran to its end: none crashed, none lost its `done` in the pipe.
    expect(heard.errors).toEqual([])
    expect(heard.childEnds.size).toBe(shape.agents)
    expect([...heard.childEnds.values()].filter((end) => end.status !== 'completed')).toEqual([])
    expect(heard.jobEnd?.data.status).toBe('completed')

    // Every tool call the model asked for was stored, and so was its result.
    const asked = scriptedToolCalls(run.settings.script!)
    expect(stored.byType.get('tool.call')).toBe(asked)
    expect(stored.byType.get('tool.result')).toBe(asked)
    // What the listeners heard is what was stored, and the export holds all of it.
    expect(Object.fromEntries(heard.byType)).toEqual(Object.fromEntries(stored.byType))
    expect(run.exportedLines - 1).toBe(stored.total)
    expect((await countLines(run.exportFile)) - 1).toBe(stored.total)
    expect(stored.total).toBeGreaterThan(90_000)

    // Usage is counted once: the job's total is the sum of its agents', which is the sum of its calls.
    expect(heard.jobEnd?.data.usage).toEqual(heard.agentEndUsage)
    expect(heard.agentEndUsage).toEqual(heard.llmUsage)
    expect(stored.llmUsage).toEqual(heard.llmUsage)
    expect(heard.llmUsage.input_tokens).toBeGreaterThan(0)
  })
})
