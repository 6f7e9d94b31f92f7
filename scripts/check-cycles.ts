/**
 * `node --import tsx scripts/check-cycles.ts` (part of `npm run lint`): no file of src-main,
 * src-renderer or src-preload may import, through any chain, a file that imports it back.
 * Nor may a module of src-main/core or src-renderer/src (each folder right under one, and each file
 * right in it) import, through others, a module that imports it back: store/ above otlp/ above
 * store/ is a circle even when no single file closes it. Tests and their helpers (`*.test.ts`, `testing.ts`, `testing/`)
 * are left out of that second check, since they sit above the code they test; they count in the
 * first. Prints each cycle with its files and exits 1 if there is one.
 *
 * The graph is the one TypeScript sees: each file parsed by TypeScript itself, each specifier
 * resolved by `ts.resolveModuleName` with the compiler options of the tsconfig that includes the
 * file (so the projects' `paths` aliases resolve as the typechecker resolves them).
 *
 * What counts as an edge: `import` and `export … from` declarations, type-only ones too (a type
 * two files share belongs below both, style.md), `import x = require(…)` and `typeof import(…)`
 * types. What does not: a dynamic `import(…)` call, which loads its module when it runs rather
 * than when the importer loads, and is how a cycle is legitimately broken at run time (lazy command
 * modules). `ts.preProcessFile` reports those calls among the static imports with no way to tell
 * them apart, so the files are parsed with `ts.createSourceFile` and walked instead.
 */
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

export const defaultFolders = ['src-main', 'src-renderer', 'src-preload']
export const defaultTsconfigs = ['tsconfig.web.json', 'tsconfig.node.json']
export const defaultModuleRoots = ['src-main/core', 'src-renderer/src']

const sourceExtension = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/
const skippedFolders = new Set(['node_modules', 'out', 'dist', 'coverage'])

/** Every file importing another: absolute path to the absolute paths it imports statically. */
export type ImportGraph = Map<string, string[]>

export interface CheckOptions {
  root: string
  folders?: string[]
  /** Their compiler options resolve the files they include; the first one listed wins. */
  tsconfigs?: string[]
  /** Folders whose modules (each folder and file right under one) may not import each other in a circle. */
  moduleRoots?: string[]
}

/** The source files under `folders` of `root`, sorted, declaration files left out. */
export function sourceFiles(root: string, folders: string[]): string[] {
  const files: string[] = []
  const walk = (folder: string): void => {
    let entries
    try {
      entries = readdirSync(folder, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const file = path.join(folder, entry.name)
      if (entry.isDirectory()) {
        if (!skippedFolders.has(entry.name)) walk(file)
      } else if (sourceExtension.test(entry.name) && !entry.name.endsWith('.d.ts')) {
        files.push(file)
      }
    }
  }
  for (const folder of folders) walk(path.join(root, folder))
  return files.sort()
}

/** The module specifiers a file imports when it loads (see the header for what counts). */
export function staticSpecifiers(fileName: string, text: string): string[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, scriptKind(fileName))
  const specifiers: string[] = []
  const add = (node: ts.Node | undefined): void => {
    if (node && ts.isStringLiteralLike(node)) specifiers.push(node.text)
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) add(node.moduleSpecifier)
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) add(node.moduleReference.expression)
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) add(node.argument.literal)
    ts.forEachChild(node, visit)
  }
  visit(source)
  return specifiers
}

function scriptKind(fileName: string): ts.ScriptKind {
  if (fileName.endsWith('.tsx')) return ts.ScriptKind.TSX
  if (fileName.endsWith('.jsx')) return ts.ScriptKind.JSX
  if (/\.[mc]?js$/.test(fileName)) return ts.ScriptKind.JS
  return ts.ScriptKind.TS
}

interface Project {
  options: ts.CompilerOptions
  files: Set<string>
}

function readProjects(root: string, tsconfigs: string[]): Project[] {
  return tsconfigs.map((name) => {
    const configFile = path.join(root, name)
    const read = ts.readConfigFile(configFile, ts.sys.readFile)
    if (read.error) throw new Error(`${name}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`)
    const parsed = ts.parseJsonConfigFileContent(read.config, ts.sys, path.dirname(configFile), undefined, configFile)
    return { options: parsed.options, files: new Set(parsed.fileNames.map((file) => path.resolve(file))) }
  })
}

/** The static import graph of the source files under `folders`, edges only between those files. */
export function importGraph({ root, folders = defaultFolders, tsconfigs = defaultTsconfigs }: CheckOptions): ImportGraph {
  const projects = readProjects(root, tsconfigs)
  const fallback: ts.CompilerOptions = projects[0]?.options ?? {
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  }
  const files = sourceFiles(root, folders)
  const known = new Set(files)
  const graph: ImportGraph = new Map()
  for (const file of files) {
    const options = projects.find((project) => project.files.has(file))?.options ?? fallback
    const text = ts.sys.readFile(file) ?? ''
    const targets = new Set<string>()
    for (const specifier of staticSpecifiers(file, text)) {
      const resolved = ts.resolveModuleName(specifier, file, options, ts.sys).resolvedModule
      if (!resolved || resolved.isExternalLibraryImport) continue
      const target = path.resolve(resolved.resolvedFileName)
      if (known.has(target) && target !== file) targets.add(target)
    }
    graph.set(file, [...targets].sort())
  }
  return graph
}

/** Tarjan's strongly connected components with more than one file (iterative: deep chains do not overflow). */
export function stronglyConnected(graph: ImportGraph): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const onStack = new Set<string>()
  const stack: string[] = []
  const components: string[][] = []
  let next = 0
  for (const start of graph.keys()) {
    if (index.has(start)) continue
    const frames: { file: string; edge: number }[] = [{ file: start, edge: 0 }]
    index.set(start, next)
    low.set(start, next)
    next += 1
    stack.push(start)
    onStack.add(start)
    while (frames.length > 0) {
      const frame = frames[frames.length - 1]!
      const edges = graph.get(frame.file) ?? []
      if (frame.edge < edges.length) {
        const target = edges[frame.edge]!
        frame.edge += 1
        if (!index.has(target)) {
          index.set(target, next)
          low.set(target, next)
          next += 1
          stack.push(target)
          onStack.add(target)
          frames.push({ file: target, edge: 0 })
        } else if (onStack.has(target)) {
          low.set(frame.file, Math.min(low.get(frame.file)!, index.get(target)!))
        }
        continue
      }
      frames.pop()
      const parent = frames[frames.length - 1]
      if (parent) low.set(parent.file, Math.min(low.get(parent.file)!, low.get(frame.file)!))
      if (low.get(frame.file) === index.get(frame.file)) {
        const component: string[] = []
        for (;;) {
          const file = stack.pop()!
          onStack.delete(file)
          component.push(file)
          if (file === frame.file) break
        }
        if (component.length > 1) components.push(component.sort())
      }
    }
  }
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!))
}

/** A shortest loop from the component's first file back to itself, through the component only. */
export function shortestLoop(graph: ImportGraph, component: string[]): string[] {
  const inside = new Set(component)
  const start = component[0]!
  const cameFrom = new Map<string, string>()
  const queue = [start]
  for (let head = 0; head < queue.length; head += 1) {
    const file = queue[head]!
    for (const target of graph.get(file) ?? []) {
      if (!inside.has(target)) continue
      if (target === start) {
        const loop = [start]
        for (let step: string | undefined = file; step !== start && step !== undefined; step = cameFrom.get(step)) loop.splice(1, 0, step)
        return [...loop, start]
      }
      if (!cameFrom.has(target)) {
        cameFrom.set(target, file)
        queue.push(target)
      }
    }
  }
  return [start]
}

export interface Cycle {
  kind: 'files' | 'modules'
  /** Every file (or module) of the strongly connected component, relative to the root. */
  members: string[]
  /** One loop through them, the first repeated at the end. */
  loop: string[]
  /** For modules: an import that makes each step of the loop. */
  because: string[]
}

const isTestCode = (file: string): boolean =>
  /\.test\.[cm]?[jt]sx?$/.test(file) || /(^|[/\\])testing([/\\]|\.[a-z]+$)|\.testing\./.test(file)

/** The module a file belongs to under one of `roots`: the folder right under the root, or the file itself; null outside them. */
function moduleOf(root: string, roots: string[], file: string): string | null {
  for (const moduleRoot of roots) {
    const relative = path.relative(path.join(root, moduleRoot), file)
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue
    const [first] = relative.split(path.sep)
    return path.join(root, moduleRoot, first!)
  }
  return null
}

/** The graph of modules under `roots`, from the files that are not tests, and one file import behind each edge. */
export function moduleGraph(root: string, roots: string[], files: ImportGraph): { graph: ImportGraph; because: Map<string, string> } {
  const edges = new Map<string, Set<string>>()
  const because = new Map<string, string>()
  for (const [file, targets] of files) {
    const from = moduleOf(root, roots, file)
    if (!from || isTestCode(file)) continue
    if (!edges.has(from)) edges.set(from, new Set())
    for (const target of targets) {
      const to = moduleOf(root, roots, target)
      if (!to || to === from) continue
      edges.get(from)!.add(to)
      const key = `${from}\n${to}`
      if (!because.has(key)) because.set(key, `${file} -> ${target}`)
    }
  }
  const graph: ImportGraph = new Map([...edges].map(([module, targets]) => [module, [...targets].sort()]))
  return { graph, because }
}

export function findCycles(options: CheckOptions): Cycle[] {
  const { root, moduleRoots = defaultModuleRoots } = options
  const files = importGraph(options)
  const relative = (file: string): string => path.relative(root, file).split(path.sep).join('/')
  const cycles: Cycle[] = stronglyConnected(files).map((component) => ({
    kind: 'files',
    members: component.map(relative),
    loop: shortestLoop(files, component).map(relative),
    because: [],
  }))
  const modules = moduleGraph(root, moduleRoots, files)
  for (const component of stronglyConnected(modules.graph)) {
    const loop = shortestLoop(modules.graph, component)
    const because = loop.slice(1).map((to, index) => {
      const [from, target] = modules.because.get(`${loop[index]}\n${to}`)!.split(' -> ')
      return `${relative(from!)} -> ${relative(target!)}`
    })
    cycles.push({ kind: 'modules', members: component.map(relative), loop: loop.map(relative), because })
  }
  return cycles
}

export function formatCycles(cycles: Cycle[]): string {
  if (cycles.length === 0) return 'check-cycles: no import cycle'
  const lines = [`check-cycles: ${cycles.length} import cycle${cycles.length === 1 ? '' : 's'}`]
  for (const cycle of cycles) {
    lines.push('', cycle.kind === 'files' ? '  files:' : '  modules (tests left out):')
    lines.push(`    ${cycle.loop.join('\n      -> ')}`)
    for (const step of cycle.because) lines.push(`      because ${step}`)
    if (cycle.members.length > cycle.loop.length - 1) lines.push(`    (${cycle.members.length} in the circle: ${cycle.members.join(', ')})`)
  }
  return lines.join('\n')
}

/** `check-cycles.ts [root]`: the repository by default. */
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'))
  const cycles = findCycles({ root })
  const report = formatCycles(cycles)
  if (cycles.length > 0) {
    console.error(report)
    process.exitCode = 1
  } else {
    console.log(report)
  }
}
