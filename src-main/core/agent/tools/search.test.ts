import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { builtinTools } from './builtin'
import { compileGlob, maxHitLineCharacters, maxSearchHits } from './search-files'
import { Toolset } from './toolset'
import type { ToolContext } from './types'

const search = (projectDir: string, args: Record<string, unknown>) => {
  const context: ToolContext = { projectDir, callId: 'c1', spawn: async () => ({ ok: false, error: 'none' }) }
  return new Toolset(builtinTools, ['search']).run({ id: 'c1', name: 'search', arguments: JSON.stringify(args) }, context)
}

const put = async (root: string, files: Record<string, string | Buffer>): Promise<void> => {
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true })
    await writeFile(join(root, path), content)
  }
}

describe('search', () => {
  let project: string
  let outside: string
  beforeEach(async () => {
    project = await mkdtemp(join(tmpdir(), 'arbor-search-'))
    outside = await mkdtemp(join(tmpdir(), 'arbor-search-outside-'))
    await put(project, {
      'README.md': '# Title\nloadConfig is documented here\n',
      'src/config.ts': 'export function loadConfig() {\n  return {}\n}\n',
      'src/app.tsx': 'import { loadConfig } from "./config"\nconst c = loadConfig()\n',
      'src/deep/util.ts': 'const LOADCONFIG = 1\n',
      'docs/guide.md': 'Call loadConfig first.\r\nThen run.\r\n',
      '.git/HEAD': 'loadConfig in git\n',
      'node_modules/lib/index.js': 'loadConfig in deps\n',
      'dist/bundle.js': 'loadConfig in output\n',
      'src/node_modules/x.js': 'loadConfig nested deps\n',
      'image.bin': Buffer.concat([Buffer.from('loadConfig'), Buffer.from([0, 1, 2])]),
    })
    await writeFile(join(outside, 'secret.ts'), 'loadConfig outside\n')
  })
  afterEach(async () => {
    await rm(project, { recursive: true, force: true })
    await rm(outside, { recursive: true, force: true })
  })

  it('finds file:line:text hits in path order, skipping .git, node_modules, dist and binary files', async () => {
    const result = await search(project, { pattern: 'loadConfig' })
    expect(result.ok).toBe(true)
    expect(result.output.split('\n')).toEqual([
      'README.md:2:loadConfig is documented here',
      'docs/guide.md:1:Call loadConfig first.',
      'src/app.tsx:1:import { loadConfig } from "./config"',
      'src/app.tsx:2:const c = loadConfig()',
      'src/config.ts:1:export function loadConfig() {',
    ])
  })

  it('takes a regular expression, and (?i) for case-insensitive', async () => {
    expect((await search(project, { pattern: '^export\\s+function\\s+\\w+\\(' })).output).toBe(
      'src/config.ts:1:export function loadConfig() {',
    )
    expect((await search(project, { pattern: '(?i)loadconfig', path: 'src/deep' })).output).toBe('src/deep/util.ts:1:const LOADCONFIG = 1')
    expect((await search(project, { pattern: 'run\\.$' })).output).toBe('docs/guide.md:2:Then run.')
  })

  it('filters by glob: a file name pattern, **, braces and a folder prefix', async () => {
    const files = async (glob: string, path?: string) => [
      ...new Set(
        (await search(project, { pattern: 'loadConfig', glob, ...(path ? { path } : {}) })).output
          .split('\n')
          .map((hit) => hit.split(':')[0]),
      ),
    ]
    expect(await files('*.ts')).toEqual(['src/config.ts'])
    expect(await files('**/*.md')).toEqual(['README.md', 'docs/guide.md'])
    expect(await files('src/**/*.{ts,tsx}')).toEqual(['src/app.tsx', 'src/config.ts'])
    expect(await files('*.tsx', 'src')).toEqual(['src/app.tsx'])
    expect(await files('deep/*.ts', 'src')).toEqual(['No matches for /loadConfig/ in src (files matching deep/*.ts); 1 file searched.'])
  })

  it('searches one file when path is a file, and a skipped folder when asked for it', async () => {
    expect((await search(project, { pattern: 'return', path: 'src/config.ts' })).output).toBe('src/config.ts:2:  return {}')
    expect((await search(project, { pattern: 'loadConfig', path: 'node_modules' })).output).toBe(
      'node_modules/lib/index.js:1:loadConfig in deps',
    )
  })

  it('says so when nothing matches', async () => {
    expect((await search(project, { pattern: 'nothing-like-this' })).output).toMatch(
      /^No matches for \/nothing-like-this\/ in \.; 6 files searched\.$/,
    )
  })

  it('answers an invalid regular expression with an error result', async () => {
    const result = await search(project, { pattern: 'load(Config' })
    expect(result).toMatchObject({ ok: false, output: expect.stringMatching(/^Error: invalid regular expression \/load\(Config\/: .*/) })
  })

  it('runs the pattern in linear time: a catastrophic-backtracking pattern answers at once', async () => {
    // A backtracking engine takes about 2^40 steps here: the test would hang until vitest's timeout.
    await put(project, { 'redos.txt': `${'a'.repeat(40)}b\n` })
    expect((await search(project, { pattern: '(a+)+$', path: 'redos.txt' })).output).toBe(
      'No matches for /(a+)+$/ in redos.txt; 1 file searched.',
    )
    expect((await search(project, { pattern: '(a|aa)+b', path: 'redos.txt' })).output).toBe(`redos.txt:1:${'a'.repeat(40)}b`)
    expect((await search(project, { pattern: 'x', glob: `${'*a'.repeat(30)}*b` })).output).toMatch(/^No matches/)
  })

  it.each([
    ['(a)\\1', /invalid escape sequence: `\\1`/],
    ['load(?=Config)', /unsupported Perl syntax: `\(\?=`/],
    ['(?!x)y', /unsupported Perl syntax: `\(\?!`/],
    ['(?<=a)b', /invalid named capture/],
  ])('says RE2 syntax is used when %s is refused', async (pattern, reason) => {
    const result = await search(project, { pattern })
    expect(result.ok).toBe(false)
    expect(result.output).toMatch(reason)
    expect(result.output).toMatch(/search uses RE2 syntax: no backreferences such as \\1, no lookahead or lookbehind/)
  })

  it('takes JavaScript escapes RE2 lacks, case-insensitive groups and anchors to the whole line', async () => {
    expect((await search(project, { pattern: '\\u006coadConfig\\(\\)$', path: 'src' })).output).toBe('src/app.tsx:2:const c = loadConfig()')
    expect((await search(project, { pattern: 'const (?i:loadconfig)', path: 'src' })).output).toBe(
      'src/deep/util.ts:1:const LOADCONFIG = 1',
    )
    expect((await search(project, { pattern: '\\Afirst', path: 'docs' })).output).toMatch(/^No matches/)
    expect((await search(project, { pattern: '\\ACall', path: 'docs' })).output).toBe('docs/guide.md:1:Call loadConfig first.')
    expect((await search(project, { pattern: 'run\\.\\z' })).output).toBe('docs/guide.md:2:Then run.')
  })

  it('stays inside the project and does not follow symlinks out', async () => {
    await symlink(outside, join(project, 'src', 'escape'))
    await symlink(join(outside, 'secret.ts'), join(project, 'secret-link.ts'))
    expect((await search(project, { pattern: 'outside' })).output).toMatch(/^No matches/)
    expect(await search(project, { pattern: 'x', path: '../' })).toMatchObject({
      ok: false,
      output: expect.stringMatching(/outside the project/),
    })
    expect(await search(project, { pattern: 'x', path: 'secret-link.ts' })).toMatchObject({
      ok: false,
      output: expect.stringMatching(/outside the project/),
    })
  })

  it('skips files over 2 MB and cuts long lines', async () => {
    await put(project, {
      'big.txt': `loadConfig\n${'x'.repeat(2 * 1024 * 1024)}`,
      'min.js': `${'a'.repeat(500)}loadConfig${'b'.repeat(500)}\n`,
    })
    const output = (await search(project, { pattern: 'loadConfig', glob: '*.{txt,js}' })).output
    expect(output).not.toContain('big.txt:')
    expect(output).toContain('[1 file over 2 MB skipped]')
    const hit = output.split('\n').find((line) => line.startsWith('min.js:1:'))!
    expect(hit).toBe(`min.js:1:${'a'.repeat(maxHitLineCharacters)}… [${1010 - maxHitLineCharacters} more characters]`)
  })
})

describe('search on a generated tree of 3,000 files', () => {
  let project: string
  beforeAll(async () => {
    project = await mkdtemp(join(tmpdir(), 'arbor-search-big-'))
    const files: Record<string, string> = {}
    for (let folder = 0; folder < 60; folder++) {
      for (let file = 0; file < 50; file++) {
        const lines = Array.from({ length: 40 }, (_, line) => `line ${line} of file ${file} in folder ${folder}`)
        // One marker in every file of folders 10 and 11 only: 100 files, 100 hits.
        if (folder === 10 || folder === 11) lines[7] = `NEEDLE ${folder}/${file}`
        // Every file says "common" three times: 9,000 possible hits.
        lines[1] = lines[20] = lines[39] = 'common'
        files[`pkg${String(folder).padStart(2, '0')}/src/f${String(file).padStart(2, '0')}.ts`] = `${lines.join('\n')}\n`
      }
    }
    // Heavy folders full of matches that must not be searched.
    for (let i = 0; i < 200; i++) files[`node_modules/dep${i}/index.js`] = 'NEEDLE common\n'.repeat(50)
    await Promise.all(
      Object.entries(files).map(async ([path, content]) => {
        await mkdir(dirname(join(project, path)), { recursive: true })
        await writeFile(join(project, path), content)
      }),
    )
  })
  afterAll(async () => {
    await rm(project, { recursive: true, force: true })
  })

  it('finds every hit of a rare pattern, and none in node_modules', async () => {
    const started = performance.now()
    const result = await search(project, { pattern: 'NEEDLE \\d+/\\d+' })
    const elapsed = performance.now() - started
    const hits = result.output.split('\n')
    expect(hits).toHaveLength(100)
    expect(hits[0]).toBe('pkg10/src/f00.ts:8:NEEDLE 10/0')
    expect(hits[99]).toBe('pkg11/src/f49.ts:8:NEEDLE 11/49')
    expect(hits.every((hit) => /^pkg1[01]\/src\/f\d\d\.ts:8:NEEDLE 1[01]\/\d+$/.test(hit))).toBe(true)
    console.info(`search: 3,000 files (120,000 lines) in ${elapsed.toFixed(0)} ms`)
  })

  it('stops at the hit cap, in path order, and says so', async () => {
    const started = performance.now()
    const result = await search(project, { pattern: '^common$' })
    const elapsed = performance.now() - started
    const lines = result.output.split('\n')
    expect(lines).toHaveLength(maxSearchHits + 1)
    expect(lines.slice(0, 3)).toEqual(['pkg00/src/f00.ts:2:common', 'pkg00/src/f00.ts:21:common', 'pkg00/src/f00.ts:40:common'])
    // 3 hits a file: the 200th hit is the 2nd hit of the 67th file (f66).
    expect(lines[maxSearchHits - 1]).toBe('pkg01/src/f16.ts:21:common')
    expect(lines[maxSearchHits]).toMatch(/^\[search stopped at 200 hits/)
    console.info(`search capped at 200 hits in ${elapsed.toFixed(0)} ms`)
  })

  it('with a glob over the whole tree', async () => {
    const started = performance.now()
    const result = await search(project, { pattern: 'NEEDLE', glob: 'pkg1[01]/**/f0?.ts' })
    expect(result.output.split('\n')).toHaveLength(20)
    console.info(`search with glob in ${(performance.now() - started).toFixed(0)} ms`)
  })
})

describe('compileGlob', () => {
  it.each([
    ['*.ts', 'src/a.ts', true],
    ['*.ts', 'src/a.tsx', false],
    ['**/*.md', 'README.md', true],
    ['**/*.md', 'a/b/c.md', true],
    ['src/**/*.tsx', 'src/x.tsx', true],
    ['src/**/*.tsx', 'src/a/b/x.tsx', true],
    ['src/**/*.tsx', 'lib/src/x.tsx', false],
    ['src/*.ts', 'src/a/b.ts', false],
    ['*.{ts,tsx}', 'a.tsx', true],
    ['f?.ts', 'f1.ts', true],
    ['[!a]*.ts', 'a.ts', false],
    ['./docs/*.md', 'docs/x.md', true],
  ])('%s on %s → %s', (glob, path, expected) => {
    expect(compileGlob(glob)(path)).toBe(expected)
  })
})
