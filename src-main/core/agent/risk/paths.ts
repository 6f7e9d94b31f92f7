/** Where a path in a command line points, by real path: the project, a temporary folder, a stream, a device or outside. */
import { existsSync, realpathSync, statSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import type { Word } from './shell-words'

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

/**
 * Where a path argument points: inside the project, a temporary folder, a stream (/dev/null…),
 * a device, outside, or unknown (a variable we cannot expand, or a relative path after `cd` to
 * one). Judged by the real path of its nearest existing ancestor, so a symlink out is outside.
 */
export function locate(word: Word, scope: Scope): 'inside' | 'temporary' | 'stream' | 'device' | 'outside' | 'unknown' {
  let path = word.text
  if (word.dynamicAt >= 0) {
    path = path.replace(/^\$(\{HOME\}|HOME)(?=\/|$)/, homedir()).replace(/^\$(\{TMPDIR\}|TMPDIR)(?=\/|$)/, tmpdir())
    if (scope.cwd) path = path.replace(/^\$(\{PWD\}|PWD)(?=\/|$)/, scope.cwd)
  }
  if (path === '~' || path.startsWith('~/')) path = homedir() + path.slice(1)
  else if (path.startsWith('~')) return 'outside'
  // A variable or glob left: judge the folder written before it (`/etc/$x` is under /etc).
  const cut = Math.min(...[path.indexOf('$'), path.indexOf('`'), word.globAt >= 0 ? path.indexOf(word.text.slice(word.globAt, word.globAt + 1)) : -1].filter((index) => index >= 0), path.length)
  if (cut < path.length) {
    const prefix = path.slice(0, cut)
    if (!prefix.includes('/')) return 'unknown'
    path = prefix.slice(0, prefix.lastIndexOf('/') + 1) || '/'
  }
  if (path === '') return 'unknown'
  if (streams.test(path)) return 'stream'
  if (!isAbsolute(path) && !scope.cwd) return 'unknown'
  const absolute = resolve(scope.cwd ?? '/', path)
  if (absolute.startsWith('/dev/') && !streams.test(absolute)) return 'device'
  const real = realPathOf(absolute)
  if (isInside(scope.project, real)) return 'inside'
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

