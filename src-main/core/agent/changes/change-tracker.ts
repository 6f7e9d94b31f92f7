import { constants } from 'node:fs'
import { open } from 'node:fs/promises'
import { join } from 'node:path'
import { fileContentCapBytes } from '../../trace/file-changes'
import { maxHashedBytes, sameVersion, unreadVersion, versionOf, type FileChange, type FileVersion } from '../../protocol/file-change'
import { lstatFile, ProjectFiles, type ListedFile, type ProjectListing } from './project-files'

/**
 * Finds what a `bash` command did to the project's files: a listing of them before it runs and
 * after (project-files.ts), compared by size, mtime, ctime and inode; a path gone is deleted, a
 * new one created, one whose stat changed and whose bytes did is modified, and a deleted and a
 * created path with the same inode (or the same bytes) are one rename.
 *
 * The content before a change comes from, in order: this tracker's cache (the last version it
 * saw of a file: read when it was dirty or untracked before a command, or recorded by this
 * agent's write_file / edit_file, or found after an earlier command), then the index blob of a
 * tracked file whose stat data match the index (`git cat-file`). Otherwise it is unknown:
 * `hash_before` null, `content_stored` false. The cache holds files of at most 1 MiB, 64 MiB in all.
 *
 * One command at a time per agent (`around` queues the next), so each change is the command's
 * that ran alone in this agent. Another agent or the user writing in the same folder meanwhile
 * is not told apart: their changes are attributed to this command. The supervisor marks the
 * changes of commands that overlapped another agent's (supervisor/command-overlaps.ts);
 * worktree isolation avoids it.
 * A write_file / edit_file of this agent during the command is recorded by that tool, not again here.
 */
const maxCachedBytes = 64 * 1024 * 1024

interface Cached {
  key: string
  version: FileVersion
}

export class ChangeTracker {
  private readonly files: ProjectFiles
  private readonly cache = new Map<string, Cached>()
  private cachedBytes = 0
  private tail: Promise<unknown> = Promise.resolve()
  /** Paths this agent's own tools wrote while a command ran, with the stat they left. */
  private written = new Map<string, string>()

  constructor(readonly projectDir: string) {
    this.files = new ProjectFiles(projectDir)
  }

  /**
   * Runs `command` between two listings, after any command of this tracker still running, and
   * reports each change it made. A listing that fails costs the command nothing: it runs, and
   * no change is reported. `window` is told when the first listing starts and after the last
   * change was reported (the supervisor's `command` message).
   */
  around<T>(command: () => Promise<T>, record: (change: FileChange) => void, window?: (running: boolean) => void): Promise<T> {
    const run = this.tail.then(async () => {
      // The window spans both listings: what another agent writes in it may look like this command's.
      window?.(true)
      try {
        const before = await this.snapshot().catch(() => null)
        this.written = new Map()
        try {
          return await command()
        } finally {
          if (before) {
            const changes = await this.compare(before).catch(() => [])
            changes.forEach(record)
          }
        }
      } finally {
        window?.(false)
      }
    })
    this.tail = run.catch(() => undefined)
    return run
  }

  /** A write_file / edit_file of this agent: its version is the next one's before; a command running now does not report it again. */
  noteWrite(change: FileChange): void {
    const stat = lstatFile(join(this.projectDir, change.path))
    if (!stat) return
    this.written.set(change.path, stat.key)
    if (change.after) this.remember(change.path, stat.key, change.after)
  }

  close(): void {
    this.files.close()
  }

  /** The listing before a command; the content of every dirty or untracked file within the cap is cached. */
  private async snapshot(): Promise<ProjectListing> {
    const listing = await this.files.list(true)
    for (const [path, file] of listing) {
      if (file.clean || file.stat.size > fileContentCapBytes) continue
      if (this.cache.get(path)?.key === file.stat.key) continue
      if (this.cachedBytes + file.stat.size > maxCachedBytes) continue
      const version = await this.read(path)
      if (version) this.remember(path, file.stat.key, version)
    }
    return listing
  }

  private async compare(before: ProjectListing): Promise<FileChange[]> {
    const after = await this.files.list(false)
    const changes: FileChange[] = []
    const deleted: Array<{ path: string; file: ListedFile; version: FileVersion | null }> = []
    const created: Array<{ path: string; file: ListedFile; version: FileVersion }> = []
    for (const [path, was] of before) {
      const now = after.get(path)
      if (now && now.stat.key === was.stat.key) continue
      if (now && this.written.get(path) === now.stat.key) continue
      const versionBefore = await this.versionBefore(path, was)
      if (!now) {
        deleted.push({ path, file: was, version: versionBefore })
        continue
      }
      const versionAfter = await this.read(path)
      if (!versionAfter) continue
      this.remember(path, now.stat.key, versionAfter)
      if (sameVersion(versionBefore, versionAfter)) continue
      changes.push({ path, kind: 'modified', before: versionBefore, after: versionAfter })
    }
    for (const [path, now] of after) {
      if (before.has(path) || this.written.get(path) === now.stat.key) continue
      const version = await this.read(path)
      if (!version) continue
      this.remember(path, now.stat.key, version)
      created.push({ path, file: now, version })
    }
    for (const gone of deleted) {
      this.forget(gone.path)
      // Same bytes, or the same inode when the bytes before are unknown (an inode freed by a
      // delete and reused by a new file of other bytes is no rename).
      const index = created.findIndex(
        (made) =>
          sameVersion(gone.version, made.version) ||
          ((gone.version === null || gone.version.hash === null) &&
            made.file.stat.ino === gone.file.stat.ino &&
            made.file.stat.size === gone.file.stat.size),
      )
      if (index < 0) {
        changes.push({ path: gone.path, kind: 'deleted', before: gone.version, after: null })
        continue
      }
      const [made] = created.splice(index, 1)
      changes.push({ path: made!.path, kind: 'renamed', from_path: gone.path, before: gone.version, after: made!.version })
    }
    for (const made of created) changes.push({ path: made.path, kind: 'created', before: null, after: made.version })
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
  }

  /** What a file held before the command, as far as it can be known. */
  private async versionBefore(path: string, file: ListedFile): Promise<FileVersion | null> {
    const cached = this.cache.get(path)
    if (cached?.key === file.stat.key) return cached.version
    if (file.clean && file.blob && file.stat.size <= maxHashedBytes) {
      const bytes = await this.files.blob(file.blob).catch(() => null)
      if (bytes && bytes.byteLength === file.stat.size) return versionOf(bytes)
    }
    return unreadVersion(file.stat.size)
  }

  /** A file's bytes now, hashed (kept within the cap); undefined when it cannot be read. */
  private async read(path: string): Promise<FileVersion | undefined> {
    let handle
    try {
      // Never through a symlink swapped in since the listing: only the project's own files are read.
      handle = await open(join(this.projectDir, path), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0))
    } catch {
      return undefined
    }
    try {
      const { size } = await handle.stat()
      if (size > maxHashedBytes) return unreadVersion(size)
      return versionOf(await handle.readFile())
    } catch {
      return undefined
    } finally {
      await handle.close()
    }
  }

  private remember(path: string, key: string, version: FileVersion): void {
    this.forget(path)
    if (version.content === null || this.cachedBytes + version.size > maxCachedBytes) return
    this.cache.set(path, { key, version })
    this.cachedBytes += version.size
  }

  private forget(path: string): void {
    const cached = this.cache.get(path)
    if (!cached) return
    this.cache.delete(path)
    this.cachedBytes -= cached.version.size
  }
}
