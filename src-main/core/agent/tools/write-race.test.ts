import { spawn } from 'node:child_process'
import { link, mkdir, readFile, readdir, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { builtinTools } from './builtin'
import { projectFileTestHooks } from './project-file'
import { useSandbox } from './sandbox.testing'
import { Toolset } from './toolset'
import type { ToolContext } from './types'

/**
 * A process in the project (a command the agent started in the background) changes the file
 * system between the path check and the open. The hooks put each change at the worst moment;
 * the last test races a real process.
 */
const sandbox = useSandbox('arbor-race-')
let project: string
let outside: string
beforeEach(async () => {
  project = sandbox.project()
  outside = sandbox.outside()
  await mkdir(join(project, 'sub'))
  await writeFile(join(project, 'sub', 'file.txt'), 'inside\n')
  await writeFile(join(outside, 'file.txt'), 'outside\n')
})
afterEach(() => {
  delete projectFileTestHooks.afterCheck
  delete projectFileTestHooks.beforeOpen
})

const run = (name: string, args: unknown) => {
  const context: ToolContext = { projectDir: project, callId: 'c1', spawn: async () => ({ ok: false, error: 'none' }) }
  return new Toolset(builtinTools, ['read_file', 'write_file', 'edit_file']).run(
    { id: 'c1', name, arguments: JSON.stringify(args) },
    context,
  )
}

const writes = [
  ['write_file', { path: 'sub/file.txt', content: 'overwritten\n' }],
  ['edit_file', { path: 'sub/file.txt', old_string: 'side', new_string: 'SIDE' }],
] as const

/** The outside folder as it was: the secret, file.txt, and nothing written or created. */
async function expectOutsideUntouched(): Promise<void> {
  expect((await readdir(outside)).sort()).toEqual(['file.txt', 'secret.txt'])
  expect(await readFile(join(outside, 'file.txt'), 'utf8')).toBe('outside\n')
  expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n')
}

describe('a symlink swapped in after the path check', () => {
  it.each(writes)('%s: the file becomes a symlink to a file outside', async (tool, args) => {
    projectFileTestHooks.afterCheck = async () => {
      await unlink(join(project, 'sub', 'file.txt'))
      await symlink(join(outside, 'file.txt'), join(project, 'sub', 'file.txt'))
    }
    expect(await run(tool, args)).toMatchObject({
      ok: false,
      output: expect.stringMatching(/file\.txt became a symbolic link after the path was checked/),
    })
    await expectOutsideUntouched()
  })

  it.each(writes)('%s: the folder becomes a symlink to a folder outside', async (tool, args) => {
    projectFileTestHooks.afterCheck = async () => {
      await rm(join(project, 'sub'), { recursive: true })
      await symlink(outside, join(project, 'sub'))
    }
    expect(await run(tool, args)).toMatchObject({ ok: false, output: expect.stringMatching(/sub changed after the path was checked/) })
    await expectOutsideUntouched()
  })

  it('write_file of a new file: its folder becomes a symlink outside, or a symlink appears at its name', async () => {
    projectFileTestHooks.afterCheck = async () => {
      await rm(join(project, 'sub'), { recursive: true })
      await symlink(outside, join(project, 'sub'))
    }
    expect((await run('write_file', { path: 'sub/new.txt', content: 'x' })).ok).toBe(false)
    await expectOutsideUntouched()

    delete projectFileTestHooks.afterCheck
    await unlink(join(project, 'sub'))
    await mkdir(join(project, 'sub'))
    projectFileTestHooks.beforeOpen = async () => {
      await symlink(join(outside, 'new.txt'), join(project, 'sub', 'new.txt'))
    }
    expect(await run('write_file', { path: 'sub/new.txt', content: 'x' })).toMatchObject({
      ok: false,
      output: expect.stringMatching(/appeared while it was being created/),
    })
    await expectOutsideUntouched()
  })

  it('write_file of a new file in new folders: a folder on the way becomes a symlink outside', async () => {
    projectFileTestHooks.afterCheck = async () => {
      await symlink(outside, join(project, 'made'))
    }
    expect((await run('write_file', { path: 'made/deeper/new.txt', content: 'x' })).ok).toBe(false)
    await expectOutsideUntouched()
  })

  it('read_file: the file becomes a symlink to the secret', async () => {
    projectFileTestHooks.afterCheck = async () => {
      await unlink(join(project, 'sub', 'file.txt'))
      await symlink(join(outside, 'secret.txt'), join(project, 'sub', 'file.txt'))
    }
    const result = await run('read_file', { path: 'sub/file.txt' })
    expect(result).toMatchObject({ ok: false, output: expect.stringMatching(/became a symbolic link/) })
    expect(result.output).not.toContain('top secret')
  })
})

/** Linux opens each file through its folder's descriptor (/proc/self/fd); elsewhere the path is opened again, and refused when it changed. */
const pinned = process.platform === 'linux'

describe('a change after the folder was opened', () => {
  it.each(writes)(
    '%s: the folder is moved aside and a symlink outside takes its name; the write stays in the folder opened',
    async (tool, args) => {
      projectFileTestHooks.beforeOpen = async () => {
        await rename(join(project, 'sub'), join(project, 'moved'))
        await symlink(outside, join(project, 'sub'))
      }
      expect((await run(tool, args)).ok).toBe(pinned)
      expect(await readFile(join(project, 'moved', 'file.txt'), 'utf8')).toMatch(pinned ? /^(overwritten|inSIDE)\n$/ : /^inside\n$/)
      await expectOutsideUntouched()
    },
  )

  it.each(writes)('%s: the folder is moved out of the project', async (tool, args) => {
    projectFileTestHooks.beforeOpen = async () => {
      await rename(join(project, 'sub'), join(outside, 'sub'))
    }
    expect(await run(tool, args)).toMatchObject({
      ok: false,
      output: pinned ? expect.stringMatching(/the file is now outside the project/) : expect.any(String),
    })
    expect(await readFile(join(outside, 'sub', 'file.txt'), 'utf8')).toBe('inside\n')
  })

  it('write_file of a new file in a folder moved out of the project: nothing is left there', async () => {
    projectFileTestHooks.beforeOpen = async () => {
      await rename(join(project, 'sub'), join(outside, 'sub'))
    }
    expect((await run('write_file', { path: 'sub/new.txt', content: 'x' })).ok).toBe(false)
    expect(await readdir(join(outside, 'sub'))).toEqual(['file.txt'])
  })

  it.each(writes)('%s: the file is replaced by a hard link to a file outside', async (tool, args) => {
    projectFileTestHooks.beforeOpen = async () => {
      await unlink(join(project, 'sub', 'file.txt'))
      await link(join(outside, 'file.txt'), join(project, 'sub', 'file.txt'))
    }
    expect(await run(tool, args)).toMatchObject({
      ok: false,
      output: expect.stringMatching(/was replaced by another file while it was being opened/),
    })
    await expectOutsideUntouched()
  })

  it.each(writes)('%s: the file is replaced by a symlink', async (tool, args) => {
    projectFileTestHooks.beforeOpen = async () => {
      await unlink(join(project, 'sub', 'file.txt'))
      await symlink(join(outside, 'file.txt'), join(project, 'sub', 'file.txt'))
    }
    expect(await run(tool, args)).toMatchObject({ ok: false, output: expect.stringMatching(/became a symbolic link/) })
    await expectOutsideUntouched()
  })
})

it.runIf(process.platform !== 'win32')(
  'a process swapping the folder for a symlink outside, as fast as it can, never gets a write outside',
  async () => {
    // Swaps sub (a folder) and sub (a symlink to outside) in a tight loop, with renames, until stopped.
    const swapper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs')
     const [sub, aside, outside] = process.argv.slice(1)
     for (;;) {
       try { fs.renameSync(sub, aside); fs.symlinkSync(outside, sub) } catch {}
       try { fs.unlinkSync(sub); fs.renameSync(aside, sub) } catch {}
     }`,
        join(project, 'sub'),
        join(project, 'aside'),
        outside,
      ],
      { stdio: 'ignore' },
    )
    try {
      const outcomes = new Set<string>()
      for (let i = 0; i < 300; i++) {
        const [tool, args] =
          i % 3 === 0 ? writes[1] : i % 3 === 1 ? writes[0] : (['write_file', { path: `sub/new-${i}.txt`, content: 'x' }] as const)
        outcomes.add((await run(tool, args)).ok ? 'ok' : 'refused')
      }
      console.info(`racing writes: ${[...outcomes].join(', ')}`)
    } finally {
      swapper.kill('SIGKILL')
      await new Promise((resolve) => swapper.once('exit', resolve))
    }
    await expectOutsideUntouched()
  },
)
