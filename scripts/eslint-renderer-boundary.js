/**
 * The ESLint rule `arbor/renderer-boundary` (eslint.config.js): the renderer and the preload have
 * one door into shared code, the `@core/…` alias, and it opens on the pure modules only. In a
 * file of src-renderer or src-preload it refuses
 *   - a relative import that leaves src-renderer/src (for the preload: src-preload),
 *   - an `@core/…` import not on `coreAllowlist` (a test may import any: it runs in Node, and a
 *     preload test serves its calls with the real dispatcher),
 *   - Node's built-ins and SQLite, which only the main process has.
 * What the allowed modules import in turn is held by the web project's typecheck
 * (tsconfig.web.json includes them and has neither Node's types nor SQLite).
 */
import { builtinModules } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

/** The core modules the renderer and the preload may import: `@core/` plus one of these. */
export const coreAllowlist = [
  /^api\/(contract|methods|job-form|job-limits|errors)$/,
  /^errors$/,
  /^trace\/[a-z-]+$/,
  /^providers\/pricing$/,
]

const nodeBuiltins = new Set(builtinModules)
const mainSideOnly = new Set(['better-sqlite3'])

/** The folder a file's relative imports must stay in, or null when the rule does not apply to it. */
function homeOf(file) {
  const relative = path.relative(repoRoot, file).split(path.sep).join('/')
  if (relative.startsWith('src-renderer/src/')) return path.join(repoRoot, 'src-renderer/src')
  if (relative.startsWith('src-renderer/')) return path.join(repoRoot, 'src-renderer')
  if (relative.startsWith('src-preload/')) return path.join(repoRoot, 'src-preload')
  return null
}

/** Why `specifier`, imported by a file whose home is `home`, is refused; null when it is allowed. */
export function refusal(specifier, file, home, isTest = false) {
  if (specifier.startsWith('node:') || nodeBuiltins.has(specifier.split('/')[0]) || mainSideOnly.has(specifier.split('/')[0])) {
    return `"${specifier}" runs in the main process only; the renderer and the preload reach it through the API`
  }
  if (specifier.startsWith('@core/')) {
    const module = specifier.slice('@core/'.length)
    if (isTest || coreAllowlist.some((pattern) => pattern.test(module))) return null
    return `"${specifier}" is not one of the pure core modules the renderer may import (scripts/eslint-renderer-boundary.js)`
  }
  if (specifier.startsWith('/')) return `"${specifier}" is an absolute path; import shared code through @core/…`
  if (specifier.startsWith('.')) {
    const target = path.resolve(path.dirname(file), specifier)
    const inside = path.relative(home, target)
    if (inside.startsWith('..') || path.isAbsolute(inside)) {
      return `"${specifier}" leaves ${path.relative(repoRoot, home)}; import shared code through @core/…`
    }
  }
  return null
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'The renderer and the preload import core only through @core/… and only its pure modules' },
    schema: [],
  },
  create(context) {
    const home = homeOf(context.filename)
    if (!home) return {}
    const isTest = /\.test\.tsx?$/.test(context.filename)
    const check = (source) => {
      if (!source || source.type !== 'Literal' || typeof source.value !== 'string') return
      const message = refusal(source.value, context.filename, home, isTest)
      if (message) context.report({ node: source, message })
    }
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
      CallExpression: (node) => {
        if (node.callee.type === 'Identifier' && node.callee.name === 'require') check(node.arguments[0])
      },
    }
  },
}

export const rendererBoundaryPlugin = { rules: { 'renderer-boundary': rule } }
