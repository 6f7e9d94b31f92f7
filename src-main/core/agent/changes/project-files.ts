import { execFile, execFileSync } from 'node:child_process'
import { lstatSync, mkdtempSync, readdirSync, rmSync, type BigIntStats } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * The files a project holds, listed by git, and how each looks to lstat: what the change
 * tracker (change-tracker.ts) compares before and after a command.
 *
 * In a git work tree the list is `git ls-files -c -o --exclude-standard`, before a command with
 * `-s --debug`: tracked files with their index blob and the stat data the index keeps, so a file
 * whose size, mtime and inode are the index's is clean (its index blob is its content), as git
 * itself judges, without `-m`, which may run a repository's clean filters to re-hash a file
 * (commands outside the sandbox). Elsewhere the same command runs against an empty repository of
 * Arbor's own (GIT_DIR, with the project as its work tree), so every file is untracked and
 * `.gitignore` files, `.git/info/exclude`-like rules and the global excludes still skip what
 * git would skip. Without git, the folder is walked skipping `.git` and `node_modules` only.
 * Git never writes here: GIT_OPTIONAL_LOCKS=0, and no command that refreshes the index.
 */

/** What lstat says of a file; two keys differ when its content may have changed. */
export interface FileStat {
  size: number
  ino: number
  /** size, mtime, ctime and inode together. */
  key: string
}

export interface ListedFile {
  stat: FileStat
  /** Tracked: its index blob's id. */
  blob?: string
  /** Tracked and its index blob is its content (the index's stat data match; listed with the index only). */
  clean?: boolean
}

export type ProjectListing = Map<string, ListedFile>

const maxListingBytes = 512 * 1024 * 1024
const stagedLine = /^(\d{6}) ([0-9a-f]{40,64}) (\d)\t([\s\S]*)$/
/** `ls-files --debug`: the index's stat data of the entry before, lines indented by two spaces. */
const debugBlock = /^(?: {2}[^\n]*\n)+/

export const statOf = (info: BigIntStats): FileStat & { mtimeNs: bigint } => ({
  size: Number(info.size),
  ino: Number(info.ino),
  mtimeNs: info.mtimeNs,
  key: `${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`,
})

/** Whether the index's stat data of a file (`--debug`) is what lstat says now: the file is its index blob. */
function matchesIndex(debug: string, stat: ReturnType<typeof statOf>): boolean {
  const mtime = / {2}mtime: (\d+):(\d+)/.exec(debug)
  const size = /size: (\d+)/.exec(debug)
  const ino = /ino: (\d+)/.exec(debug)
  if (!mtime || !size) return false
  if (BigInt(mtime[1]!) * 1_000_000_000n + BigInt(mtime[2]!) !== stat.mtimeNs) return false
  if (Number(size[1]) !== stat.size) return false
  return !ino || ino[1] === '0' || Number(ino[1]) === stat.ino
}

/** The regular file at `path` (not following a symlink), or undefined. */
export function lstatFile(path: string): ReturnType<typeof statOf> | undefined {
  try {
    const info = lstatSync(path, { bigint: true })
    return info.isFile() ? statOf(info) : undefined
  } catch {
    return undefined
  }
}

export class ProjectFiles {
  /** An empty repository to list a folder that is not one, made on first need. */
  private emptyGitDir: string | null = null
  private gitMissing = false

  constructor(readonly projectDir: string) {}

  /** Lists the project's files; `withIndex`: also their index blobs and which are dirty. */
  async list(withIndex: boolean): Promise<ProjectListing> {
    if (!this.gitMissing) {
      try {
        return await this.listWithGit(withIndex)
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
        this.gitMissing = true
      }
    }
    return this.walk()
  }

  /** The bytes of an index blob. */
  async blob(id: string): Promise<Buffer> {
    return await this.git(['cat-file', 'blob', id], this.inWorkTree ? {} : this.emptyRepoEnv())
  }

  close(): void {
    if (this.emptyGitDir) rmSync(this.emptyGitDir, { recursive: true, force: true })
    this.emptyGitDir = null
  }

  /** Null until the first listing says whether the project is a git work tree. */
  private inWorkTree: boolean | null = null

  private async listWithGit(withIndex: boolean): Promise<ProjectListing> {
    const args = ['ls-files', '-z', '-c', '-o', '--exclude-standard', ...(withIndex ? ['-s', '--debug'] : [])]
    let output: Buffer
    if (this.inWorkTree !== false) {
      try {
        output = await this.git(args, {})
        this.inWorkTree = true
      } catch (error) {
        if (!/not a git repository/i.test(String((error as { stderr?: unknown }).stderr ?? ''))) throw error
        this.inWorkTree = false
        output = await this.git(args, this.emptyRepoEnv())
      }
    } else output = await this.git(args, this.emptyRepoEnv())
    const listing: ProjectListing = new Map()
    let last: { file: ListedFile; stat: ReturnType<typeof statOf> } | null = null
    for (let entry of output.toString('utf8').split('\0')) {
      const debug = withIndex ? debugBlock.exec(entry) : null
      if (debug) {
        if (last?.file.blob && matchesIndex(debug[0], last.stat)) last.file.clean = true
        entry = entry.slice(debug[0].length)
      }
      last = null
      if (entry === '') continue
      const staged = withIndex ? stagedLine.exec(entry) : null
      const path = staged ? staged[4]! : entry
      const seen = listing.get(path)
      if (seen) {
        // Another stage of a conflict: not clean.
        seen.clean = false
        continue
      }
      if (staged && staged[1] === '160000') continue // a submodule
      const stat = lstatFile(join(this.projectDir, path))
      if (!stat) continue
      const file: ListedFile = staged && staged[3] === '0' ? { stat, blob: staged[2]! } : { stat }
      listing.set(path, file)
      last = { file, stat }
    }
    return listing
  }

  /** No git on this machine: every regular file but those under `.git` and `node_modules`. */
  private walk(): ProjectListing {
    const listing: ProjectListing = new Map()
    const visit = (folder: string, prefix: string): void => {
      let entries
      try {
        entries = readdirSync(folder, { withFileTypes: true })
      } catch {
        return
      }
      for (const entry of entries) {
        const path = prefix + entry.name
        if (entry.isDirectory()) {
          if (entry.name !== '.git' && entry.name !== 'node_modules') visit(join(folder, entry.name), `${path}/`)
        } else if (entry.isFile()) {
          const stat = lstatFile(join(folder, entry.name))
          if (stat) listing.set(path, { stat })
        }
      }
    }
    visit(this.projectDir, '')
    return listing
  }

  private emptyRepoEnv(): NodeJS.ProcessEnv {
    if (!this.emptyGitDir) {
      this.emptyGitDir = mkdtempSync(join(tmpdir(), 'arbor-changes-'))
      // An empty index: `ls-files -o` lists every file, skipping what .gitignore files skip.
      execFileSync('git', ['init', '--bare', '-q', this.emptyGitDir], { stdio: 'ignore', windowsHide: true })
      process.once('exit', () => this.close())
    }
    return { GIT_DIR: this.emptyGitDir, GIT_WORK_TREE: this.projectDir }
  }

  private git(args: string[], env: NodeJS.ProcessEnv): Promise<Buffer> {
    const base = { ...process.env }
    for (const name of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE']) delete base[name]
    return new Promise((resolve, reject) => {
      execFile(
        'git',
        ['-c', 'core.quotePath=false', '-c', 'core.fsmonitor=false', ...args],
        {
          cwd: this.projectDir,
          env: { ...base, GIT_OPTIONAL_LOCKS: '0', ...env },
          encoding: 'buffer',
          maxBuffer: maxListingBytes,
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          if (error) reject(Object.assign(error, { stderr: stderr.toString('utf8') }))
          else resolve(stdout)
        },
      )
    })
  }
}
