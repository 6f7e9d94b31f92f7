/**
 * Opening a project file so that what is read or written is the file the path check approved,
 * even when a process in the project (a command the agent started) swaps in a symbolic link or a
 * hard link between the check and the open.
 *
 * resolveProjectPath judges a path by its real path at one moment. Here that real path is opened
 * one component at a time from the project's root, each folder with O_NOFOLLOW and relative to
 * the folder opened before it (on Linux through /proc/self/fd/N, as Node has no openat), so a
 * component swapped for a symlink fails to open instead of being followed. The file is then
 * checked by fstat: the device and inode lstat saw, a regular file (or a folder, when reading),
 * a single hard link when it is to be written, and its real path (from /proc/self/fd, or
 * realpath elsewhere) still inside the project. Everything after that goes through the open
 * descriptor, so no path is resolved again. Where /proc is missing, each component is opened by
 * path (with O_NOFOLLOW_ANY on macOS, which refuses a symlink anywhere in the path); on Windows,
 * which opens no folder as a file, the whole path is opened and then checked the same way.
 * Inside .git nothing is written: hooks and config there run commands, also for the user later.
 */
import { constants, existsSync, type Stats } from 'node:fs'
import { lstat, mkdir, open, readlink, realpath, unlink, type FileHandle } from 'node:fs/promises'
import { basename, dirname, join, sep } from 'node:path'
import { isInside, resolveProjectPath } from './project-path'
import { ToolError, describeFileError } from './types'

/** read: an existing file or folder; edit: an existing file, read and written; write: a file, created (with its folders) when missing. */
export type FileIntent = 'read' | 'edit' | 'write'

export interface ProjectFile {
  handle: FileHandle
  /** fstat of the open file. */
  info: Stats
  /** Relative to the project's real root. */
  relative: string
  /** The file did not exist and was created, empty (`write` only). */
  created: boolean
}

/**
 * Test seam: lets a test change the file system between the steps, as a racing process would.
 * `afterCheck` runs after the path check, before anything is opened; `beforeOpen` after the
 * file's folder is open and the file was looked at, just before it is opened. Unset outside tests.
 */
export const projectFileTestHooks: { afterCheck?: (absolute: string) => Promise<void>; beforeOpen?: (absolute: string) => Promise<void> } =
  {}

const throughDescriptors = process.platform === 'linux' && existsSync('/proc/self/fd')
/** Windows opens no folder as a file: there the path is opened whole (its folders made by mkdir) and checked after the open. */
const folderHandles = process.platform !== 'win32'
/** macOS's O_NOFOLLOW_ANY (<sys/fcntl.h>): no symlink in any component. Node does not export it. */
const noFollowAny = process.platform === 'darwin' ? 0x20000000 : 0
const noFollow = (constants.O_NOFOLLOW ?? 0) | noFollowAny
const folderFlags = constants.O_RDONLY | (constants.O_DIRECTORY ?? 0) | noFollow
/** Without O_NONBLOCK, opening a FIFO waits for a writer forever. */
const nonBlocking = constants.O_NONBLOCK ?? 0

interface Folder {
  /** Null where folders are not opened (Windows). */
  handle: FileHandle | null
  /** Its real path when it was opened. */
  path: string
}

const errorCode = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

/** The path naming `name` in an open folder: through its descriptor where possible. */
const entryPath = (folder: Folder, name: string): string =>
  throughDescriptors && folder.handle ? `/proc/self/fd/${folder.handle.fd}/${name}` : join(folder.path, name)

/** A path inside `.git`: git runs hooks and reads config (pagers, fsmonitor, aliases) from there, also when the user runs git later. */
const insideGitFolder = (relative: string): boolean => relative.split(sep).some((name) => name.toLowerCase() === '.git')

/** Opens a project path for reading or writing, refusing anything that changed since the path check (see the header). */
export async function openProjectFile(projectDir: string, input: string, intent: FileIntent): Promise<ProjectFile> {
  const { root, absolute, relative } = await resolveProjectPath(projectDir, input)
  if (intent !== 'read' && insideGitFolder(relative)) {
    throw new ToolError(
      `${input}: files inside .git are not written by this tool (git runs hooks and reads its config from there); use git commands`,
    )
  }
  await projectFileTestHooks.afterCheck?.(absolute)
  const entry: Entry = { root, absolute, relative, input, intent }
  if (relative === '.') {
    if (intent !== 'read' || !folderHandles) throw new ToolError(`${input} is a directory`)
    const handle = await open(root, constants.O_RDONLY | nonBlocking)
    return { handle, info: await handle.stat(), relative, created: false }
  }
  if (!folderHandles) {
    if (intent === 'write') await mkdir(dirname(absolute), { recursive: true })
    return await openEntry({ handle: null, path: dirname(absolute) }, basename(absolute), entry)
  }
  const names = relative.split(sep)
  let folder: Folder = { handle: await open(root, folderFlags), path: root }
  try {
    for (const name of names.slice(0, -1)) {
      const child = await openFolder(folder, name, input, intent === 'write')
      await folder.handle?.close()
      folder = child
    }
    return await openEntry(folder, names.at(-1)!, entry)
  } finally {
    await folder.handle?.close()
  }
}

async function openFolder(parent: Folder, name: string, input: string, create: boolean): Promise<Folder> {
  const path = entryPath(parent, name)
  const attempt = async (): Promise<Folder> => ({ handle: await open(path, folderFlags), path: join(parent.path, name) })
  try {
    return await attempt()
  } catch (error) {
    if (errorCode(error) === 'ENOENT' && create) {
      await mkdir(path).catch((mkdirError: unknown) => {
        if (errorCode(mkdirError) !== 'EEXIST') throw describeFileError(mkdirError, input) ?? mkdirError
      })
      return await attempt().catch((retryError: unknown) => {
        throw folderError(retryError, name, input)
      })
    }
    throw folderError(error, name, input)
  }
}

function folderError(error: unknown, name: string, input: string): unknown {
  const code = errorCode(error)
  if (code === 'ELOOP' || code === 'ENOTDIR')
    return new ToolError(
      `${input}: ${name} changed after the path was checked (it is now a symbolic link or not a folder); nothing was opened`,
    )
  return describeFileError(error, input) ?? error
}

interface Entry {
  root: string
  absolute: string
  relative: string
  input: string
  intent: FileIntent
}

async function openEntry(folder: Folder, name: string, entry: Entry): Promise<ProjectFile> {
  const { input, intent } = entry
  const path = entryPath(folder, name)
  const before = await lstat(path).catch((error: unknown) => {
    if (errorCode(error) === 'ENOENT' && intent === 'write') return undefined
    throw describeFileError(error, input) ?? error
  })
  if (before) {
    if (before.isSymbolicLink())
      throw new ToolError(`${input}: ${name} became a symbolic link after the path was checked; nothing was opened`)
    refuseSpecialFile(before, input)
    if (intent !== 'read' && before.isDirectory()) throw new ToolError(`${input} is a directory`)
    if (intent !== 'read') refuseHardLinks(before, input)
  }
  await projectFileTestHooks.beforeOpen?.(entry.absolute)
  // `write` reads too: the content it replaces is recorded (a `file.change`'s version before).
  const access = intent === 'read' ? constants.O_RDONLY : constants.O_RDWR
  const create = before ? 0 : constants.O_CREAT | constants.O_EXCL
  let handle: FileHandle
  try {
    handle = await open(path, access | noFollow | nonBlocking | create, 0o666)
  } catch (error) {
    throw entryError(error, name, input)
  }
  try {
    const info = await handle.stat()
    if (before && (info.dev !== before.dev || info.ino !== before.ino))
      throw new ToolError(`${input} was replaced by another file while it was being opened; nothing was changed`)
    refuseSpecialFile(info, input)
    if (intent !== 'read') refuseHardLinks(info, input)
    await refuseOutside(handle, info, join(folder.path, name), entry)
    return { handle, info, relative: entry.relative, created: !before }
  } catch (error) {
    await handle.close()
    // Created through a folder that moved out of the project meanwhile: take the empty file back.
    if (!before) await unlink(path).catch(() => undefined)
    throw error
  }
}

function entryError(error: unknown, name: string, input: string): unknown {
  switch (errorCode(error)) {
    case 'ELOOP':
      return new ToolError(`${input}: ${name} became a symbolic link after the path was checked; nothing was opened`)
    case 'EEXIST':
      return new ToolError(`${input} appeared while it was being created; nothing was written, try again`)
    case 'ENXIO':
      return new ToolError(`${input} is a socket or a FIFO, not a regular file`)
    default:
      return describeFileError(error, input) ?? error
  }
}

/** FIFOs, sockets and devices are not files to read or write: a FIFO blocks, /dev/zero never ends. */
export function refuseSpecialFile(info: Stats, input: string): void {
  const kind = info.isFIFO()
    ? 'a FIFO (named pipe)'
    : info.isSocket()
      ? 'a socket'
      : info.isCharacterDevice()
        ? 'a character device'
        : info.isBlockDevice()
          ? 'a block device'
          : null
  if (kind) throw new ToolError(`${input} is ${kind}, not a regular file; it is not opened`)
}

/** A file with several hard links may be one that lives outside the project: it is not written. */
function refuseHardLinks(info: Stats, input: string): void {
  if (info.isFile() && info.nlink > 1) {
    throw new ToolError(`${input} has ${info.nlink} hard links, so it may also be a file outside the project; it is not written`)
  }
}

/** The open file's real path must still be inside the project (its folder may have been moved out). */
async function refuseOutside(handle: FileHandle, info: Stats, path: string, entry: Entry): Promise<void> {
  let real: string
  if (throughDescriptors) {
    real = await readlink(`/proc/self/fd/${handle.fd}`)
  } else {
    real = await realpath(path)
    const now = await lstat(real)
    if (now.dev !== info.dev || now.ino !== info.ino)
      throw new ToolError(`${entry.input} was replaced by another file while it was being opened; nothing was changed`)
  }
  if (!isInside(entry.root, real))
    throw new ToolError(`${entry.input}: the file is now outside the project (${entry.root}); nothing was changed`)
}

/** Whether an open file's real path is inside `root` (false when it cannot be told). For files found by walking a folder. */
export async function isOpenFileInside(handle: FileHandle, path: string, root: string): Promise<boolean> {
  try {
    return isInside(root, throughDescriptors ? await readlink(`/proc/self/fd/${handle.fd}`) : await realpath(path))
  } catch {
    return false
  }
}

/**
 * An open file's content, read from the start, up to `limit` bytes and one more: a file that
 * grows while it is read (a log being written) cannot make the read go on without end. `size`
 * (from fstat) sizes the first read.
 */
export async function readUpTo(handle: FileHandle, limit: number, size: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let total = 0
  let chunkSize = Math.min(size + 1, limit + 1)
  while (total <= limit) {
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, limit + 1 - total)))
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, total)
    if (bytesRead === 0) break
    chunks.push(chunk.subarray(0, bytesRead))
    total += bytesRead
    chunkSize = 64 * 1024
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)
}

/** Replaces an open file's whole content, through its descriptor. */
export async function replaceContent(handle: FileHandle, content: string): Promise<void> {
  const bytes = Buffer.from(content, 'utf8')
  await handle.truncate(0)
  for (let offset = 0; offset < bytes.length;) {
    const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset, offset)
    offset += bytesWritten
  }
}
