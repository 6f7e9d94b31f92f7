import { execFileSync } from 'node:child_process'
import { symlink, writeFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:net'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { builtinTools } from './builtin'
import { openProjectFile, projectFileTestHooks } from './project-file'
import { useSandbox } from './sandbox.testing'
import { Toolset } from './toolset'
import type { ToolContext } from './types'

const sandbox = useSandbox('arbor-read-')
let project: string
beforeEach(() => {
  project = sandbox.project()
})
afterEach(() => {
  delete projectFileTestHooks.afterCheck
})

const run = (name: string, args: unknown) => {
  const context: ToolContext = { projectDir: project, callId: 'c1', spawn: async () => ({ ok: false, error: 'none' }) }
  return new Toolset(builtinTools, ['read_file', 'write_file', 'edit_file', 'search']).run(
    { id: 'c1', name, arguments: JSON.stringify(args) },
    context,
  )
}

const unix = process.platform !== 'win32'

describe.runIf(unix)('files that are not regular files', () => {
  // Without O_NONBLOCK, opening a FIFO with no writer would hang these tests until vitest's timeout.
  it('refuses a FIFO, without waiting for a writer', async () => {
    execFileSync('mkfifo', [join(project, 'pipe')])
    for (const tool of ['read_file', 'write_file', 'edit_file'] as const) {
      const result = await run(tool, { path: 'pipe', content: 'x', old_string: 'a', new_string: 'b' })
      expect(result, tool).toMatchObject({ ok: false, output: 'Error: pipe is a FIFO (named pipe), not a regular file; it is not opened' })
    }
    expect(await run('search', { pattern: 'x', path: 'pipe' })).toMatchObject({
      ok: false,
      output: expect.stringMatching(/pipe is a FIFO/),
    })
  })

  it('refuses a FIFO swapped in after the path check', async () => {
    await writeFile(join(project, 'notes.txt'), 'hello\n')
    projectFileTestHooks.afterCheck = async () => {
      execFileSync('rm', [join(project, 'notes.txt')])
      execFileSync('mkfifo', [join(project, 'notes.txt')])
    }
    expect(await run('read_file', { path: 'notes.txt' })).toMatchObject({
      ok: false,
      output: expect.stringMatching(/notes\.txt is a FIFO/),
    })
  })

  describe('a unix socket', () => {
    let server: Server
    beforeEach(async () => {
      server = createServer()
      await new Promise<void>((resolve) => server.listen(join(project, 'agent.sock'), resolve))
    })
    afterEach(async () => {
      await new Promise((resolve) => server.close(resolve))
    })

    it('is refused', async () => {
      expect(await run('read_file', { path: 'agent.sock' })).toMatchObject({
        ok: false,
        output: 'Error: agent.sock is a socket, not a regular file; it is not opened',
      })
      expect(await run('write_file', { path: 'agent.sock', content: 'x' })).toMatchObject({
        ok: false,
        output: expect.stringMatching(/is a socket/),
      })
    })
  })

  it('refuses a symlink to /dev/zero or /dev/urandom, which would never end', async () => {
    await symlink('/dev/zero', join(project, 'zero'))
    await symlink('/dev/urandom', join(project, 'random.txt'))
    for (const path of ['zero', 'random.txt']) {
      const result = await run('read_file', { path })
      expect(result.ok, path).toBe(false)
      expect(result.output, path).toMatch(/outside the project/)
    }
  })

  it('refuses a device by its type, also where the path check lets it through', async () => {
    // A project folder of /dev: the path is inside, so only the type check stands between it and an endless read.
    await expect(openProjectFile('/dev', 'zero', 'read')).rejects.toThrow(
      'zero is a character device, not a regular file; it is not opened',
    )
    await expect(openProjectFile('/dev', 'urandom', 'read')).rejects.toThrow(/is a character device/)
    await expect(openProjectFile('/dev', 'null', 'write')).rejects.toThrow(/is a character device/)
  })
})
