import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import { findCycles, formatCycles } from './check-cycles'

const script = fileURLToPath(new URL('./check-cycles.ts', import.meta.url))
let roots: string[] = []
afterEach(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true })
  roots = []
})

/** A project in a temp folder: its tsconfig (with an alias, as the web project has) and `files`. */
function project(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(tmpdir(), 'arbor-cycles-'))
  roots.push(root)
  const tsconfig = {
    compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', jsx: 'react-jsx', paths: { '@core/*': ['./src-main/core/*'] } },
    include: ['src-main', 'src-renderer', 'src-preload'],
  }
  writeFileSync(path.join(root, 'tsconfig.node.json'), JSON.stringify(tsconfig))
  writeFileSync(path.join(root, 'tsconfig.web.json'), JSON.stringify(tsconfig))
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true })
    writeFileSync(path.join(root, file), text)
  }
  return root
}

const acyclic = {
  'src-main/core/trace/model.ts': 'export interface Job { id: string }\n',
  'src-main/core/store/rows.ts': "import type { Job } from '../trace/model'\nexport const row = (job: Job) => job.id\n",
  'src-main/core/store/rows.test.ts':
    "import { row } from './rows'\nimport { pushed } from '../otlp/push'\nexport const both = [row, pushed]\n",
  'src-main/core/otlp/push.ts': "import { row } from '../store/rows'\nexport const pushed = row\n",
  'src-renderer/src/App.tsx': "import type { Job } from '@core/trace/model'\nexport const App = (job: Job) => <p>{job.id}</p>\n",
  // A lazy import is how a cycle is broken at run time: it is no edge.
  'src-main/cli/main.ts': "export const run = async () => (await import('./commands/export')).exportCommand\nexport const name = 'arbor'\n",
  'src-main/cli/commands/export.ts': "import { name } from '../main'\nexport const exportCommand = name\n",
}

describe('check-cycles', () => {
  it('finds no cycle in an acyclic tree: a lazy import() back, and a test importing two modules, close none', () => {
    const root = project(acyclic)
    expect(findCycles({ root })).toEqual([])
    const run = spawnSync(process.execPath, ['--import', 'tsx', script, root], { encoding: 'utf8' })
    expect(run.stdout).toContain('no import cycle')
    expect(run.status).toBe(0)
  })

  it('finds a cycle of files closed by a type-only import through an alias, prints its files and exits 1', () => {
    const root = project({
      ...acyclic,
      'src-renderer/src/store/types.ts': "import type { Slice } from './slice'\nexport type Store = { slice: Slice }\n",
      'src-renderer/src/store/slice.ts': "import type { Store } from './types'\nexport type Slice = { get(): Store }\n",
      'src-main/core/trace/model.ts': "import type { Row } from '@core/store/rows'\nexport interface Job { id: string; row?: Row }\n",
      'src-main/core/store/rows.ts':
        "import type { Job } from '../trace/model'\nexport type Row = string\nexport const row = (job: Job) => job.id\n",
    })
    const cycles = findCycles({ root })
    expect(cycles.filter((cycle) => cycle.kind === 'files')).toEqual([
      {
        kind: 'files',
        members: ['src-main/core/store/rows.ts', 'src-main/core/trace/model.ts'],
        loop: ['src-main/core/store/rows.ts', 'src-main/core/trace/model.ts', 'src-main/core/store/rows.ts'],
        because: [],
      },
      {
        kind: 'files',
        members: ['src-renderer/src/store/slice.ts', 'src-renderer/src/store/types.ts'],
        loop: ['src-renderer/src/store/slice.ts', 'src-renderer/src/store/types.ts', 'src-renderer/src/store/slice.ts'],
        because: [],
      },
    ])
    const run = spawnSync(process.execPath, ['--import', 'tsx', script, root], { encoding: 'utf8' })
    expect(run.status).toBe(1)
    expect(run.stderr).toContain('src-renderer/src/store/slice.ts\n      -> src-renderer/src/store/types.ts')
  })

  it('finds a circle of renderer folders: the store importing a view folder that imports the store', () => {
    const root = project({
      ...acyclic,
      'src-renderer/src/store/types.ts': "import type { Metric } from '../timeline/stacks'\nexport type Store = { metric: Metric }\n",
      'src-renderer/src/timeline/stacks.ts':
        "import type { Store } from '../store/types'\nexport type Metric = Store extends object ? 'tokens' : never\n",
    })
    const cycles = findCycles({ root }).filter((cycle) => cycle.kind === 'modules')
    expect(cycles.map((cycle) => cycle.members)).toEqual([['src-renderer/src/store', 'src-renderer/src/timeline']])
  })

  it('finds a circle of core modules that no single file closes, naming an import for each step', () => {
    const root = project({
      ...acyclic,
      'src-main/core/store/export.ts': "import { pushed } from '../otlp/push'\nexport const exported = pushed\n",
    })
    const cycles = findCycles({ root })
    expect(cycles).toEqual([
      {
        kind: 'modules',
        members: ['src-main/core/otlp', 'src-main/core/store'],
        loop: ['src-main/core/otlp', 'src-main/core/store', 'src-main/core/otlp'],
        because: [
          'src-main/core/otlp/push.ts -> src-main/core/store/rows.ts',
          'src-main/core/store/export.ts -> src-main/core/otlp/push.ts',
        ],
      },
    ])
    expect(formatCycles(cycles)).toContain('because src-main/core/store/export.ts -> src-main/core/otlp/push.ts')
  })
})
