import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { makeInit, runScripted } from '../testing'

let project: string
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), 'arbor-agent-tools-'))
})
afterEach(async () => {
  await rm(project, { recursive: true, force: true })
})

describe('the new tools in an agent run', () => {
  it('a worker writes, edits, searches and runs a command, each call traced', async () => {
    const { outcome, supervisor } = await runScripted(
      makeInit(
        project,
        [
          { tool_calls: [{ name: 'write_file', arguments: { path: 'src/greet.js', content: 'console.log("hello")\n' } }] },
          { tool_calls: [{ name: 'edit_file', arguments: { path: 'src/greet.js', old_string: '"hello"', new_string: '"hello, arbor"' } }] },
          { tool_calls: [{ name: 'search', arguments: { pattern: 'arbor', glob: '*.js' } }] },
          { tool_calls: [{ name: 'bash', arguments: { command: 'node src/greet.js' } }] },
          { tool_calls: [{ name: 'attempt_completion', arguments: { result: 'done' } }] },
        ],
        { name: 'worker' },
      ),
    )
    expect(outcome).toMatchObject({ status: 'completed', result: 'done' })
    expect(await readFile(join(project, 'src', 'greet.js'), 'utf8')).toBe('console.log("hello, arbor")\n')
    const results = supervisor.data('tool.result').map(({ name, ok, output }) => ({ name, ok, output }))
    expect(results).toEqual([
      { name: 'write_file', ok: true, output: `Created ${join('src', 'greet.js')} (1 line, 21 bytes).` },
      { name: 'edit_file', ok: true, output: `Edited ${join('src', 'greet.js')} at line 1: 1 line replaced by 1.` },
      { name: 'search', ok: true, output: 'src/greet.js:1:console.log("hello, arbor")' },
      { name: 'bash', ok: true, output: 'exit code: 0\nhello, arbor' },
      { name: 'attempt_completion', ok: true, output: 'Result received.' },
    ])
  })

  it('an explore agent gets search but not the writing tools', async () => {
    const result = JSON.stringify({ status: 'completed', summary: 's', findings: [], evidence: [], unresolved_questions: [] })
    const { supervisor } = await runScripted(
      makeInit(
        project,
        [
          {
            tool_calls: [
              { name: 'search', arguments: { pattern: 'x' } },
              { name: 'bash', arguments: { command: 'touch made.txt' } },
            ],
          },
          { tool_calls: [{ name: 'attempt_completion', arguments: { result } }] },
        ],
        { name: 'explore' },
      ),
    )
    // Results are traced as calls finish: find them by name.
    const search = supervisor.data('tool.result').find((data) => data.name === 'search')
    const bash = supervisor.data('tool.result').find((data) => data.name === 'bash')
    expect(search).toMatchObject({ name: 'search', ok: true })
    expect(bash).toMatchObject({ name: 'bash', ok: false, output: expect.stringMatching(/the tool "bash" is not allowed for this agent/) })
    await expect(readFile(join(project, 'made.txt'))).rejects.toThrow()
  })
})
