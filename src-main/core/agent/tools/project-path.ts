import { lstat, realpath } from 'node:fs/promises'
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path'
import { ToolError, describeFileError } from './types'

export interface ProjectPath {
  /** The project's real path. */
  root: string
  /** The real absolute path (symlinks resolved as far as the path exists). */
  absolute: string
  /** Relative to the project's real root; '.' for the root itself. */
  relative: string
}

export const isInside = (root: string, path: string): boolean => {
  const fromRoot = relative(root, path)
  return fromRoot === '' || (fromRoot !== '..' && !fromRoot.startsWith(`..${sep}`) && !isAbsolute(fromRoot))
}

const isMissing = (error: unknown): boolean => (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT'

/**
 * Resolves a path the model gave (relative to the project, or absolute) to its real path and
 * refuses it when that lies outside the project's real path: a symlink pointing outside is
 * outside. A path that does not exist yet is judged by its nearest existing ancestor's real
 * path; a broken symlink on the way is refused, since writing through it could land anywhere.
 * This is a check at one moment: to open what it approved, use openProjectFile (project-file.ts),
 * which refuses a symlink swapped in afterwards.
 */
export async function resolveProjectPath(projectDir: string, input: string): Promise<ProjectPath> {
  if (input.includes('\0')) throw new ToolError('the path contains a NUL character')
  const root = await realpath(projectDir)
  const candidate = resolve(projectDir, input)
  const absolute = await realpathOfMaybeMissing(candidate, input)
  if (!isInside(root, absolute)) throw new ToolError(`${input}: the path is outside the project (${root})`)
  return { root, absolute, relative: relative(root, absolute) || '.' }
}

async function realpathOfMaybeMissing(candidate: string, input: string): Promise<string> {
  const missing: string[] = []
  let current = candidate
  for (;;) {
    try {
      return join(await realpath(current), ...missing)
    } catch (error) {
      if (!isMissing(error)) throw describeFileError(error, input) ?? error
    }
    const link = await lstat(current).catch(() => undefined)
    if (link?.isSymbolicLink()) throw new ToolError(`${input}: ${basename(current)} is a broken symbolic link`)
    const parent = dirname(current)
    if (parent === current) throw new ToolError(`${input}: no existing folder on this path`)
    missing.unshift(basename(current))
    current = parent
  }
}
