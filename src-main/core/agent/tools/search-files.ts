import { constants, type Dirent } from 'node:fs'
import { open, readdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { RE2JS, RE2JSException } from 're2js'
import { isOpenFileInside, readUpTo, refuseSpecialFile } from './project-file'
import { resolveProjectPath } from './project-path'
import { ToolError, describeFileError, type ToolContext } from './types'

/** Folders not searched below the starting folder: version control, dependencies, build output, caches. */
export const searchSkippedFolders = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  'dist',
  'out',
  'build',
  'target',
  'coverage',
  '.venv',
  'venv',
  '__pycache__',
  '.mypy_cache',
  '.pytest_cache',
  '.tox',
  '.gradle',
  '.next',
  '.nuxt',
  '.turbo',
  '.cache',
  '.parcel-cache',
  '.terraform',
  '.idea',
])
export const maxSearchHits = 200
/** A hit's line is cut to this many characters. */
export const maxHitLineCharacters = 300
/** Files larger than this are skipped. */
export const maxSearchFileBytes = 2 * 1024 * 1024
/** Files with a NUL byte in their first this-many bytes are binary and skipped. */
const binaryProbeBytes = 8192
/** Files read at once. */
const concurrency = 32

/** The search tool's work (search.ts), loaded on its first call. */
export async function searchProject(args: { pattern: string; path?: string; glob?: string }, context: ToolContext): Promise<string> {
  const regex = compilePattern(args.pattern)
  const matchesGlob = args.glob === undefined ? () => true : compileGlob(args.glob)
  const shownPath = args.path ?? '.'
  const { root, absolute, relative } = await resolveProjectPath(context.projectDir, shownPath)
  let isFolder: boolean
  try {
    const info = await stat(absolute)
    refuseSpecialFile(info, shownPath)
    isFolder = info.isDirectory()
  } catch (error) {
    throw describeFileError(error, shownPath) ?? error
  }
  const prefix = relative === '.' ? '' : relative.split('\\').join('/')
  const files = isFolder ? await listFiles(absolute, prefix, matchesGlob, context.signal) : [{ absolute, relative: prefix }]
  const { hits, capped, skipped } = await searchFiles(files, { line: regex, file: wholeFileFilter(args.pattern), root }, context.signal)
  const notes: string[] = []
  if (capped) notes.push(`[search stopped at ${maxSearchHits} hits; narrow the pattern, path or glob to see the rest]`)
  if (skipped > 0) notes.push(`[${skipped} file${skipped === 1 ? '' : 's'} over ${maxSearchFileBytes / 1024 / 1024} MB skipped]`)
  if (hits.length === 0) {
    const where = args.glob ? `${relative} (files matching ${args.glob})` : relative
    return [`No matches for /${args.pattern}/ in ${where}; ${files.length} file${files.length === 1 ? '' : 's'} searched.`, ...notes].join(
      '\n',
    )
  }
  return [...hits, ...notes].join('\n')
}

/**
 * The model's pattern, compiled by RE2 (re2js), which matches in linear time: no catastrophic
 * backtracking, so no backreferences or lookaround either. `(?i)` ignores case. A pattern RE2
 * rejects gets a second try through re2js's translation of JavaScript syntax (`\u0041`, `\cJ`);
 * when both fail, the error result gives RE2's message.
 */
export function compilePattern(pattern: string, flags = 0): RE2JS {
  try {
    return RE2JS.compile(pattern, flags)
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error
    try {
      return RE2JS.compile(RE2JS.translateRegExp(pattern), flags)
    } catch {
      const reason = error.message.replace(/^error parsing regexp: /, '')
      throw new ToolError(
        `invalid regular expression /${pattern}/: ${reason} (search uses RE2 syntax: no backreferences such as \\1, no lookahead or lookbehind)`,
      )
    }
  }
}

/**
 * A glob as a test on a project-relative path: `*` and `?` stay within a folder, `**` spans
 * folders (`**\/` may match none), `{a,b}` alternates, `[…]` is a character class. A glob without
 * a `/` is matched against the file name only.
 */
export function compileGlob(glob: string): (relativePath: string) => boolean {
  const pattern = glob.replace(/^\.\//, '')
  let source = ''
  let braces = 0
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        const slashAfter = pattern[i + 2] === '/'
        source += slashAfter ? '(?:.*/)?' : '.*'
        i += slashAfter ? 2 : 1
      } else {
        source += '[^/]*'
      }
    } else if (c === '?') source += '[^/]'
    else if (c === '{') {
      braces += 1
      source += '(?:'
    } else if (c === '}' && braces > 0) {
      braces -= 1
      source += ')'
    } else if (c === ',' && braces > 0) source += '|'
    else if (c === '[') {
      const end = pattern.indexOf(']', i + 2)
      if (end < 0) source += '\\['
      else {
        source += `[${pattern
          .slice(i + 1, end)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\')}]`
        i = end
      }
    } else source += c.replace(/[.+^$(){}|\\/]/g, '\\$&')
  }
  if (braces > 0) throw new ToolError(`invalid glob ${glob}: unclosed "{"`)
  let regex: RE2JS
  try {
    regex = RE2JS.compile(`^${source}$`)
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error
    throw new ToolError(`invalid glob ${glob}: ${error.message.replace(/^error parsing regexp: /, '')}`)
  }
  if (!pattern.includes('/')) return (path) => regex.test(path.slice(path.lastIndexOf('/') + 1))
  return (path) => regex.test(path)
}

interface FileToSearch {
  absolute: string
  /** Relative to the project, with "/" separators. */
  relative: string
}

/**
 * Every file under `folder` in sorted depth-first order, skipping heavy folders and symbolic
 * links. The glob may match the path from the project or from the searched folder.
 */
async function listFiles(
  folder: string,
  prefix: string,
  matchesGlob: (path: string) => boolean,
  signal?: AbortSignal,
): Promise<FileToSearch[]> {
  const files: FileToSearch[] = []
  const walk = async (absolute: string, relative: string): Promise<void> => {
    if (signal?.aborted) throw new ToolError('the search was stopped')
    let entries: Dirent[]
    try {
      entries = await readdir(absolute, { withFileTypes: true })
    } catch {
      return // unreadable folder: nothing to search there
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (!searchSkippedFolders.has(entry.name)) await walk(join(absolute, entry.name), path)
      } else if (entry.isFile() && (matchesGlob(path) || (prefix !== '' && matchesGlob(path.slice(prefix.length + 1))))) {
        files.push({ absolute: join(absolute, entry.name), relative: path })
      }
    }
  }
  await walk(folder, prefix)
  return files
}

interface Matcher {
  /** Tested on each line (no line terminator). */
  line: RE2JS
  /** Tested on a whole file first, when that cannot miss a line's match: a file it rejects is skipped. */
  file: RE2JS | null
  /** The project's real path: a file found is read only when its real path is inside it. */
  root: string
}

/**
 * The line pattern in multi-line mode, tried on a whole file before splitting it into lines (most
 * files of a search have no hit). Any match within a line is then also a match in the file, except
 * through what anchors to the whole text: `\A`, `\z`, or a flag group turning multi-line off.
 * Those patterns get no filter.
 */
function wholeFileFilter(pattern: string): RE2JS | null {
  if (/\\[Az]|\(\?[a-zA-Z]*-/.test(pattern)) return null
  try {
    return compilePattern(pattern, RE2JS.MULTILINE)
  } catch {
    return null
  }
}

async function searchFiles(
  files: FileToSearch[],
  matcher: Matcher,
  signal?: AbortSignal,
): Promise<{ hits: string[]; capped: boolean; skipped: number }> {
  const hits: string[] = []
  let skipped = 0
  for (let start = 0; start < files.length; start += concurrency) {
    if (signal?.aborted) throw new ToolError('the search was stopped')
    const batch = await Promise.all(files.slice(start, start + concurrency).map((file) => searchFile(file, matcher)))
    for (const result of batch) {
      if (result === 'too-big') {
        skipped += 1
        continue
      }
      for (const hit of result) {
        if (hits.length === maxSearchHits) return { hits, capped: true, skipped }
        hits.push(hit)
      }
    }
  }
  return { hits, capped: false, skipped }
}

/** Opened without following a symlink swapped in after the walk, and without waiting on a FIFO. */
const searchOpenFlags = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)

/**
 * The hits of one file (at most one more than the cap), [] when it is binary, unreadable, not a
 * regular file, or (a folder on its path having become a symlink since the walk) outside the project.
 */
async function searchFile(file: FileToSearch, matcher: Matcher): Promise<string[] | 'too-big'> {
  let content: Buffer
  try {
    const handle = await open(file.absolute, searchOpenFlags)
    try {
      const info = await handle.stat()
      if (!info.isFile()) return []
      if (info.size > maxSearchFileBytes) return 'too-big'
      if (!(await isOpenFileInside(handle, file.absolute, matcher.root))) return []
      content = await readUpTo(handle, maxSearchFileBytes, info.size)
      if (content.length > maxSearchFileBytes) return 'too-big'
    } finally {
      await handle.close()
    }
  } catch {
    return []
  }
  if (content.length === 0 || content.subarray(0, binaryProbeBytes).includes(0)) return []
  const text = content.toString('utf8')
  // "$" before "\r\n" matches a line but not the file: such files are read line by line.
  if (matcher.file && !matcher.file.test(text) && !text.includes('\r')) return []
  const regex = matcher.line
  const hits: string[] = []
  let lineNumber = 0
  let lineStart = 0
  while (lineStart <= text.length && hits.length <= maxSearchHits) {
    const newline = text.indexOf('\n', lineStart)
    const lineEnd = newline < 0 ? text.length : newline
    lineNumber += 1
    let line = text.slice(lineStart, lineEnd)
    if (line.endsWith('\r')) line = line.slice(0, -1)
    if (regex.test(line)) hits.push(`${file.relative}:${lineNumber}:${cutLine(line)}`)
    // A final newline ends the last line; no empty line follows it.
    if (newline < 0 || newline + 1 === text.length) break
    lineStart = newline + 1
  }
  return hits
}

function cutLine(line: string): string {
  if (line.length <= maxHitLineCharacters) return line
  return `${line.slice(0, maxHitLineCharacters)}… [${line.length - maxHitLineCharacters} more characters]`
}
