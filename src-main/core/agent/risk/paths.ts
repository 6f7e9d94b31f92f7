/** Where a path in a command line points, by real path: the project, a temporary folder, a stream, a device or outside. */
import { existsSync, realpathSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Word } from './words'

/** Where the classifier stands while it reads a command line. */
export interface Scope {
  /** The project's real path. */
  project: string
  /** Real paths of the folders outside the project that may be written to. */
  temporary: string[]
  /** The working folder as far as it is known (`cd` to a variable makes it unknown). */
  cwd: string | null
  nesting: number
}

const streams = /^\/dev\/(null|zero|stdout|stderr|stdin|tty|fd\/\d+)$|^\/proc\/self\/fd\/\d+$/

let tempFolders: string[] | undefined
export const defaultTemporaryFolders = (): string[] =>
  (tempFolders ??= [...new Set(['/tmp', '/var/tmp', '/dev/shm', tmpdir()].filter((folder) => existsSync(folder)).map(realPathOf))])

export type Place = 'inside' | 'git' | 'temporary' | 'stream' | 'device' | 'outside' | 'unknown'

export interface Location {
  place: Place
  /** For `unknown`: why the place cannot be told before the command runs. */
  why?: string
}

/**
 * What a glob in a path may do: `refuse` makes the place unknown (a glob can pick a symlink out,
 * or `..`); `last-component` judges a glob in the last component by its folder (`src/*.ts` is in
 * src; for commands that replace a symlink rather than write through it, like `sed -i`).
 */
export type GlobRule = 'refuse' | 'last-component'

const unknown = (why: string): Location => ({ place: 'unknown', why })
const knownVariable = /^\$(\{HOME\}|HOME|\{TMPDIR\}|TMPDIR|\{PWD\}|PWD)(?=\/|$)/

/**
 * Where a path argument points: inside the project, inside its .git folder, a temporary folder,
 * a stream (/dev/null…), a device, outside, or unknown (a variable we cannot expand, a glob, a
 * relative path after `cd` to one). Judged by the real path of its nearest existing ancestor, so
 * a symlink out is outside. `$HOME`, `$TMPDIR`, `$PWD` and `~` are expanded; a path whose folder
 * is outside is outside whatever follows it (`/etc/$x`).
 */
export function locate(word: Word, scope: Scope, globs: GlobRule = 'refuse'): Location {
  let { text, marks } = word
  if (/^[<>]\(…\)$/.test(text) && marks === 'dddd') return { place: 'stream' } // `> >(tee log)`: a pipe to a command read on its own
  if (marks.includes('b')) return unknown('files a brace expansion names')
  const variable = knownVariable.exec(text)
  if (variable && /^d+$/.test(marks.slice(0, variable[0].length))) {
    const name = variable[1]!.replace(/[{}]/g, '')
    const value = name === 'HOME' ? homedir() : name === 'TMPDIR' ? tmpdir() : scope.cwd
    if (value) {
      text = value + text.slice(variable[0].length)
      marks = 'l'.repeat(value.length) + marks.slice(variable[0].length)
    }
  }
  if (text.startsWith('~') && marks[0] === 'l') {
    const user = /^~([^/]*)/.exec(text)![1]!
    const value = user === '' ? homedir() : user === '+' ? scope.cwd : null
    if (!value) return unknown(user === '-' ? 'the previous working folder (~-)' : `another user's home folder (~${user})`)
    text = value + text.slice(user.length + 1)
    marks = 'l'.repeat(value.length) + marks.slice(user.length + 1)
  }
  const dynamicAt = marks.indexOf('d')
  const globAt = marks.indexOf('g')
  if (dynamicAt < 0 && globAt < 0) {
    const place = placeOf(text, scope)
    return place === 'unknown' ? unknown('a path relative to a working folder known only when the command runs') : { place }
  }
  const cut = dynamicAt < 0 ? globAt : globAt < 0 ? dynamicAt : Math.min(dynamicAt, globAt)
  const folder = text.slice(0, text.lastIndexOf('/', cut) + 1)
  const folderPlace = folder === '' ? (scope.cwd ? placeOf(scope.cwd, scope) : 'unknown') : placeOf(folder, scope)
  if (folderPlace === 'outside' || folderPlace === 'device') return { place: folderPlace }
  if (dynamicAt >= 0) return unknown('a path known only when the command runs')
  if (globs === 'refuse' || text.indexOf('/', globAt) >= 0) return unknown('files a glob picks when the command runs')
  return folderPlace === 'unknown'
    ? unknown('a path relative to a working folder known only when the command runs')
    : { place: folderPlace }
}

/** Where a literal path points (see locate). */
function placeOf(path: string, scope: Scope): Place {
  if (path === '') return 'unknown'
  if (streams.test(path)) return 'stream'
  if (!isAbsolute(path) && !scope.cwd) return 'unknown'
  const absolute = resolve(scope.cwd ?? '/', path)
  if (absolute.startsWith('/dev/') && !streams.test(absolute)) return 'device'
  const real = realPathOf(absolute)
  if (isInside(scope.project, real)) {
    return relative(scope.project, real)
      .split(sep)
      .some((name) => name.toLowerCase() === '.git')
      ? 'git'
      : 'inside'
  }
  if (scope.temporary.some((folder) => isInside(folder, real))) return 'temporary'
  return 'outside'
}

export function isExistingFile(word: Word, scope: Scope): boolean {
  if (word.dynamicAt >= 0 || word.globAt >= 0 || !scope.cwd) return false
  try {
    return statSync(resolve(scope.cwd, word.text.replace(/^~(?=\/|$)/, homedir()))).isFile()
  } catch {
    return false
  }
}

export function changeDirectory(args: Word[], scope: Scope): string | null {
  const target = args.find((word) => !word.text.startsWith('-') || word.text === '-')
  if (!target) return homedir()
  if (target.text === '-' || (target.dynamicAt >= 0 && !/^\$(\{HOME\}|HOME)(\/|$)/.test(target.text))) return null
  const path = target.text.replace(/^(~|\$\{HOME\}|\$HOME)(?=\/|$)/, homedir())
  if (!isAbsolute(path) && !scope.cwd) return null
  return realPathOf(resolve(scope.cwd ?? '/', path))
}

/** The real path of `path`, or of its nearest existing ancestor with the rest appended. */
export function realPathOf(path: string): string {
  const missing: string[] = []
  let current = path
  for (;;) {
    try {
      return join(realpathSync.native(current), ...missing)
    } catch {
      const parent = dirname(current)
      if (parent === current) return path
      missing.unshift(basename(current))
      current = parent
    }
  }
}

export function isInside(root: string, path: string): boolean {
  const fromRoot = relative(root, path)
  return fromRoot === '' || (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot))
}
