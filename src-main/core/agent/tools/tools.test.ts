import { mkdir, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeEach, describe, expect, it } from 'vitest'
import { builtinTools } from './builtin'
import { maxListedEntries } from './list-files'
import { resolveProjectPath } from './project-path'
import { useSandbox } from './sandbox.testing'
import { Toolset } from './toolset'
import type { ToolContext } from './types'

const sandbox = useSandbox('arbor-tools-')
let project: string
let outside: string
beforeEach(() => {
  project = sandbox.project()
  outside = sandbox.outside()
})

const toolset = () => new Toolset(builtinTools, ['read_file', 'list_files'])
let nextCall = 0
const run = (name: string, args: unknown) => {
  const context: ToolContext = {
    projectDir: project,
    callId: `c${++nextCall}`,
    spawn: async () => ({ ok: false, error: 'none' }),
  }
  return toolset().run({ id: context.callId, name, arguments: JSON.stringify(args) }, context)
}

describe('read_file', () => {
  it('reads numbered lines, with offset and limit', async () => {
    await writeFile(join(project, 'a.txt'), Array.from({ length: 12 }, (_, i) => `line ${i + 1}`).join('\n'))
    expect((await run('read_file', { path: 'a.txt', offset: 9, limit: 2 })).output).toBe(
      ' 9\tline 9\n10\tline 10\n(lines 9-10 of 12; use offset to read more)',
    )
    expect((await run('read_file', { path: 'a.txt', offset: 50 })).output).toBe('(a.txt has 12 lines; offset 50 is past the end)')
    expect((await run('read_file', { path: join(project, 'a.txt'), offset: 12 })).output).toBe('12\tline 12')
  })

  it('gives a clear error for missing files and folders', async () => {
    expect(await run('read_file', { path: 'nope.txt' })).toMatchObject({ ok: false, output: 'Error: nope.txt: no such file or directory' })
    expect(await run('read_file', { path: '.' })).toMatchObject({ ok: false, output: 'Error: . is a directory; use list_files' })
  })

  it('refuses paths outside the project, including through a symlink', async () => {
    await symlink(join(outside, 'secret.txt'), join(project, 'link.txt'))
    await symlink(outside, join(project, 'linkdir'))
    for (const path of ['../outside/secret.txt', join(outside, 'secret.txt'), 'link.txt', 'linkdir/secret.txt', '/etc/passwd']) {
      const result = await run('read_file', { path })
      expect(result.ok, path).toBe(false)
      expect(result.output, path).toMatch(/outside the project/)
      expect(result.output).not.toContain('top secret')
    }
  })

  it('follows a symlink that stays inside the project', async () => {
    await writeFile(join(project, 'real.txt'), 'inside\n')
    await symlink(join(project, 'real.txt'), join(project, 'alias.txt'))
    expect(await run('read_file', { path: 'alias.txt' })).toMatchObject({ ok: true, output: '1\tinside' })
  })

  it('cuts output at 50,000 characters and says how much was cut', async () => {
    await writeFile(join(project, 'big.txt'), 'x'.repeat(60_000))
    const result = await run('read_file', { path: 'big.txt' })
    // '1\t' + 60,000 characters = 60,002; 50,000 are kept.
    expect(result.truncated).toBe(true)
    expect(result.output.startsWith(`1\t${'x'.repeat(100)}`)).toBe(true)
    expect(result.output.endsWith('\n\n[output truncated: 10,002 characters cut]')).toBe(true)
    expect(result.output.length).toBe(50_000 + '\n\n[output truncated: 10,002 characters cut]'.length)
  })
})

describe('resolveProjectPath', () => {
  it('judges a path that does not exist yet by its existing parent', async () => {
    await symlink(outside, join(project, 'linkdir'))
    await expect(resolveProjectPath(project, 'new/deep/file.txt')).resolves.toMatchObject({ relative: join('new', 'deep', 'file.txt') })
    await expect(resolveProjectPath(project, 'linkdir/new.txt')).rejects.toThrow(/outside the project/)
  })

  it('refuses a broken symlink, whose target could be anywhere', async () => {
    await symlink(join(outside, 'not-yet.txt'), join(project, 'dangling.txt'))
    await expect(resolveProjectPath(project, 'dangling.txt')).rejects.toThrow(/broken symbolic link/)
  })
})

describe('list_files', () => {
  beforeEach(async () => {
    await mkdir(join(project, 'src', 'lib'), { recursive: true })
    await mkdir(join(project, '.git', 'objects'), { recursive: true })
    await mkdir(join(project, 'node_modules', 'zod'), { recursive: true })
    await mkdir(join(project, 'src', 'node_modules'), { recursive: true })
    await writeFile(join(project, 'README.md'), '#')
    await writeFile(join(project, 'src', 'index.ts'), '')
    await writeFile(join(project, 'src', 'lib', 'util.ts'), '')
    await writeFile(join(project, '.git', 'HEAD'), '')
    await writeFile(join(project, 'node_modules', 'zod', 'index.js'), '')
  })

  it('lists one folder, skipping .git and node_modules', async () => {
    expect((await run('list_files', {})).output).toBe('README.md\nsrc/')
    expect((await run('list_files', { path: 'src' })).output).toBe('src/index.ts\nsrc/lib/')
  })

  it('walks sub-folders when recursive, still skipping .git and node_modules at any depth', async () => {
    expect((await run('list_files', { recursive: true })).output).toBe('README.md\nsrc/\nsrc/index.ts\nsrc/lib/\nsrc/lib/util.ts')
  })

  it('does not list outside the project or follow symlinked folders', async () => {
    await symlink(outside, join(project, 'src', 'escape'))
    expect((await run('list_files', { path: '../outside' })).output).toMatch(/outside the project/)
    expect((await run('list_files', { path: 'src', recursive: true })).output).toBe('src/escape\nsrc/index.ts\nsrc/lib/\nsrc/lib/util.ts')
  })

  it('caps the number of entries', async () => {
    await mkdir(join(project, 'many'))
    await Promise.all(
      Array.from({ length: maxListedEntries + 5 }, (_, i) => writeFile(join(project, 'many', `f${String(i).padStart(4, '0')}`), '')),
    )
    const output = (await run('list_files', { path: 'many' })).output
    expect(output.split('\n').filter((line) => line.startsWith('many/'))).toHaveLength(maxListedEntries)
    expect(output).toMatch(/listing stopped at 1000 entries/)
  })
})

describe('Toolset', () => {
  it('gives each tool a JSON schema for the model; await_tasks and merge_branch come with task', () => {
    const definitions = new Toolset(builtinTools, ['read_file', 'task']).definitions()
    expect(definitions.map((definition) => definition.name)).toEqual([
      'read_file',
      'task',
      'await_tasks',
      'merge_branch',
      'attempt_completion',
    ])
    expect(new Toolset(builtinTools, ['read_file']).names).toEqual(['read_file', 'attempt_completion'])
    expect(definitions[0]!.parameters).toMatchObject({
      type: 'object',
      required: ['path'],
      properties: { path: { type: 'string' }, offset: { type: 'integer' }, limit: { type: 'integer' } },
    })
    // With `resume` only the prompt is needed; a new subagent's description and profile are checked when it runs.
    expect(definitions[1]!.parameters).toMatchObject({ required: ['prompt'], properties: { resume: { type: 'string' } } })
    expect(definitions[1]!.parameters).toMatchObject({ properties: { isolation: { enum: ['worktree'] } } })
    expect(definitions[3]!.parameters).toMatchObject({ required: ['agent_id'] })
    expect(definitions[0]!.parameters).not.toHaveProperty('$schema')
  })

  it('asks a new subagent for its description and profile, and resumes only where the supervisor can', async () => {
    const spawned: unknown[] = []
    const context: ToolContext = {
      projectDir: project,
      callId: 'c',
      spawn: async (request) => (spawned.push(request), { ok: false, error: 'no' }),
    }
    const tools = new Toolset(builtinTools, ['task'])
    const run = (args: Record<string, unknown>) => tools.run({ id: 'c', name: 'task', arguments: JSON.stringify(args) }, context)
    expect(await run({ prompt: 'look around' })).toMatchObject({
      ok: false,
      output: expect.stringContaining('needs a description and a subagent_type'),
    })
    expect(await run({ resume: 'agent_1', prompt: 'and then?' })).toMatchObject({
      ok: false,
      output: expect.stringContaining('not available here'),
    })
    expect(spawned).toEqual([])
  })

  it('answers arguments that are not JSON with an error', async () => {
    const context: ToolContext = { projectDir: project, callId: 'c', spawn: async () => ({ ok: false, error: '' }) }
    const result = await toolset().run({ id: 'c', name: 'read_file', arguments: '{"path":' }, context)
    expect(result).toMatchObject({ ok: false, output: expect.stringMatching(/^Error: the arguments of read_file are not valid JSON/) })
  })
})
