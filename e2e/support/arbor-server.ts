import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** A real `arbor serve` (the built CLI) on a small project, with its own data folder. */
export interface ArborServer {
  url: string
  origin: string
  token: string
  project: string
  dbFile: string
  /** The `arbor serve` process has not exited. */
  alive(): boolean
  /** What it printed so far (stdout and stderr). */
  output(): string
  stop(): Promise<void>
}

const repoRoot = path.resolve(import.meta.dirname, '../..')

/** A line of the fixture project's AGENTS.md, which goes into the root agent's system prompt. */
export const projectRule = 'AGENTS-RULE: keep every change small and say what you removed.'

export function makeFixtureProject(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'arbor-e2e-'))
  const project = path.join(dir, 'shop')
  mkdirSync(path.join(project, 'src'), { recursive: true })
  writeFileSync(path.join(project, 'README.md'), '# Shop\n\nA tiny shop used by the Arbor e2e tests.\n')
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '1.0.0', type: 'module' }, null, 2))
  writeFileSync(path.join(project, 'cart.ts'), 'export const total = (prices: number[]) => prices.reduce((a, b) => a + b, 0)\n')
  writeFileSync(path.join(project, 'src', 'index.ts'), "export { total } from '../cart'\n")
  writeFileSync(path.join(project, 'notes.txt'), 'Stale notes: delete me.\n')
  writeFileSync(path.join(project, 'AGENTS.md'), `# Agent rules\n\n${projectRule}\n`)
  return project
}

/** Where startArborServer keeps a fixture project's database. */
export const dataFolderOf = (project: string): string => path.join(path.dirname(project), 'data')

export interface ServerOptions {
  /** Open the fixture project (default), or start on the start screen. */
  openProject?: boolean
  /** Extra environment; provider keys of the test runner's own environment are never passed on. */
  env?: NodeJS.ProcessEnv
  /** A project made with makeFixtureProject (its data folder beside it) instead of a new one: a database another CLI wrote. */
  project?: string
}

export async function startArborServer(options: ServerOptions = {}): Promise<ArborServer> {
  const project = options.project ?? makeFixtureProject()
  const data = dataFolderOf(project)
  const dbFile = path.join(data, 'arbor.db')
  const args = ['serve', ...(options.openProject === false ? [] : [project]), '--db', dbFile]
  return { ...(await launchArbor(args, 'arbor serve', { ARBOR_DATA_DIR: data, ...options.env })), project, dbFile }
}

/** A real `arbor open FILE` (the built CLI) with a data folder of its own: the file's job shown read-only. */
export async function openInArbor(file: string): Promise<Omit<ArborServer, 'project'>> {
  const data = mkdtempSync(path.join(os.tmpdir(), 'arbor-e2e-open-'))
  const dbFile = path.join(data, 'arbor.db')
  return { ...(await launchArbor(['open', file, '--db', dbFile], 'arbor open', { ARBOR_DATA_DIR: data })), dbFile }
}

/** Starts the built CLI with `args` and resolves once it prints the URL to open. */
async function launchArbor(args: string[], name: string, extraEnv: NodeJS.ProcessEnv): Promise<Omit<ArborServer, 'project' | 'dbFile'>> {
  const { OPENAI_API_KEY: _openai, ANTHROPIC_API_KEY: _anthropic, ...env } = process.env
  const child: ChildProcess = spawn(process.execPath, [path.join(repoRoot, 'bin/arbor.js'), ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...env, ...extraEnv },
  })
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start:\n${output}`)), 20_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Open: (\S+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve(match[1])
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code}:\n${output}`)))
  })
  const parsed = new URL(url)
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get('token') ?? '',
    alive: () => child.exitCode === null && child.signalCode === null,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
      }),
  }
}
