import { execFile } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { openDatabase } from '../core/store/database'
import { agentIds, changeJob } from '../core/store/testing/change-fixture'
import { useTempDir } from '../core/store/testing/temp-dir'

/** `arbor changes`, through the real CLI process (from source, and built when `npm run build` ran), on a job with real file changes. */
const cli = fileURLToPath(new URL('./main.ts', import.meta.url))
const builtCli = fileURLToPath(new URL('../../bin/arbor.js', import.meta.url))
const built = existsSync(fileURLToPath(new URL('../../out/main/cli.js', import.meta.url)))

interface Outcome {
  code: number
  stdout: string
  stderr: string
}

function arbor(args: string[], options: { built?: boolean } = {}): Promise<Outcome> {
  const entry = options.built ? [builtCli] : ['--import', 'tsx', cli]
  return new Promise((resolve) => {
    execFile(process.execPath, [...entry, ...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

describe('arbor changes', () => {
  const dir = useTempDir()
  const sample = (): string => {
    const file = path.join(dir(), 'arbor.db')
    const project = path.join(dir(), 'project')
    mkdirSync(project)
    const db = openDatabase(file)
    const job = changeJob(db, project, 'job_cafe1234')
    job.change('a', 'src/app.ts', 'export const a = 1\n', { call: 'call-a' })
    job.change('a', 'src/app.ts', 'export const a = 2\nexport const b = 3\n', { call: 'call-a2' })
    job.change('b', 'README.md', '# hi\n', { call: 'call-b' })
    job.change('b', 'logo.png', Buffer.from([0x89, 0, 1]), { call: 'call-b2' })
    job.writer.close()
    db.close()
    return file
  }

  const expectations = async (options: { built?: boolean }) => {
    const db = sample()
    const all = await arbor(['changes', 'job_cafe', '--db', db], options)
    expect(all).toMatchObject({ code: 0, stderr: '' })
    expect(all.stdout.split('\n')).toEqual([
      'job job_cafe1234, the whole job: 3 files changed, +3 −0',
      'A  logo.png  binary  by b (agent-b)',
      'A  README.md  +1 −0  by b (agent-b)',
      'A  src/app.ts  +2 −0  by a (agent-a)',
      '',
    ])
    const own = await arbor(['changes', 'last', '--db', db, '--agent', 'a', '--diff'], options)
    expect(own.stdout).toContain(`job job_cafe1234, agent ${agentIds.a}: 1 file changed, +2 −0`)
    expect(own.stdout).toContain(
      ['--- /dev/null', '+++ b/src/app.ts', '@@ -0,0 +1,2 @@ (tool call call-a2)', '+export const a = 2', '+export const b = 3'].join('\n'),
    )
    expect(own.stdout).not.toContain('README.md')
    const refused = await arbor(['changes', 'job_cafe', '--db', db, '--agent', 'nobody'], options)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('job job_cafe1234 has no agent nobody')
  }

  it("lists the files with +/− and who changed them, and one agent's own with --diff", () => expectations({}), 90_000)

  it.skipIf(!built)(
    `works the same from the built CLI (bin/arbor.js)${built ? '' : ' — skipped: out/main/cli.js is not built, run npm run build'}`,
    () => expectations({ built: true }),
    90_000,
  )
})
