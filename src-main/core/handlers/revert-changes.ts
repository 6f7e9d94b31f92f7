import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, relative, resolve } from 'node:path'
import { foldChanges, jobFileChanges, netKind, scopeAgents, type FileChangeEvent, type FileFold } from '../store/changes'
import type { SqliteDatabase } from '../store/database'
import { fileContentHash, getFileContent, putFileContent } from '../store/file-contents'
import { getAgents } from '../store/queries'
import type { TraceLog } from '../store/trace-writer'
import type { RevertBlock, RevertResult } from '../trace/change-views'
import { newEvent } from '../trace/events'
import type { FileChangeKind } from '../trace/file-changes'
import type { AgentNode, Job } from '../trace/model'
import { isLiveStatus } from '../trace/statuses'
import { jobWorktrees } from './worktree-handlers'

/**
 * Revert: puts back what an agent (or its subtree) changed, all or nothing. It is planned from
 * the scope's net changes (store/changes.ts) and refused, with every reason, when an agent of
 * the scope may still write, when a later change by an agent outside the scope touched one of
 * the files, when a change's command ran beside another agent's (it may be that agent's), when
 * a file on disk is no longer what the scope left, or when a before-content is not stored. Only
 * then is anything written.
 *
 * In the trace: a `control` `revert_changes` on the scope's agent (value: the subtree flag and
 * the paths), then per file a `file.change` with tool `revert` and no tool call, attributed to
 * the agent whose change it undoes (the scope's last change of that file). So the scope's own
 * net change becomes nothing, and a later revert of another agent sees the revert as a change
 * that came after it.
 */

interface Step {
  fold: FileFold
  /** The before-content to write at the original path; null when the file did not exist. */
  before: Buffer | null
  /** What is on disk at the fold's path now (the scope's after), null when absent. */
  current: Buffer | null
}

export function revertChanges(db: SqliteDatabase, writer: TraceLog, job: Job, agent: AgentNode, subtree: boolean): RevertResult {
  const agents = getAgents(db, job.id)
  const held = scopeAgents(agents, { job_id: job.id, agent_id: agent.id, subtree })
  const labels = new Map(agents.map((node) => [node.id, node.label]))
  const blocks: RevertBlock[] = []
  for (const node of agents) {
    if (!held.has(node.id) || !(isLiveStatus(node.status) || node.status === 'held' || node.status === 'queued')) continue
    blocks.push({
      path: '',
      reason: 'running',
      agent_id: node.id,
      label: node.label,
      message: `${node.label} (${node.id}) is still ${node.status}; stop it or wait for it to end`,
    })
  }
  const all = jobFileChanges(db, job.id)
  blocks.push(...worktreeBlocks(db, job, agents, held, all))
  // Only the project folder's changes: a worktree's paths are not the project's.
  const changes = all.filter((event) => event.data.branch === undefined)
  const folds = foldChanges(changes.filter((event) => event.agent_id !== null && held.has(event.agent_id))).filter(
    (fold) => netKind(fold) !== 'unchanged',
  )
  const steps: Step[] = []
  for (const fold of folds) {
    const first = fold.events[0]!.seq
    const later = changes.find(
      (event) =>
        event.seq > first &&
        !(event.agent_id !== null && held.has(event.agent_id)) &&
        (fold.paths.has(event.data.path) || (event.data.from_path !== undefined && fold.paths.has(event.data.from_path))),
    )
    if (later) {
      const label = labels.get(later.agent_id ?? '') ?? 'the job'
      blocks.push({
        path: fold.path,
        reason: 'later_change',
        ...(later.agent_id ? { agent_id: later.agent_id, label } : {}),
        message: `${fold.path} was changed later by ${label} (${later.agent_id ?? 'job'}, ${later.data.tool})`,
      })
      continue
    }
    // A command that ran beside another agent's may have recorded that agent's writes as its own.
    const beside = fold.events.flatMap((event) => event.data.concurrent_with ?? []).find((command) => !held.has(command.agent_id))
    if (beside) {
      const label = labels.get(beside.agent_id) ?? beside.agent_id
      blocks.push({
        path: fold.path,
        reason: 'concurrent',
        agent_id: beside.agent_id,
        label,
        message: `${fold.path} was changed by a command that ran while ${label} (${beside.agent_id}) ran one in the same folder, so the change may be ${label}'s`,
      })
      continue
    }
    const step = checkDisk(db, job.project, fold, blocks)
    if (step) steps.push(step)
  }
  if (blocks.length > 0) {
    const scope = subtree ? `${agent.label}'s subtree` : agent.label
    return { reverted: false, message: `Not reverted: ${scope}'s changes. ${blocks.map((block) => block.message).join('; ')}`, blocks }
  }
  writer.append(
    newEvent('control', place(job, agent), {
      action: 'revert_changes',
      target: agent.id,
      value: { subtree, files: steps.map((step) => step.fold.path) },
      by: 'user',
    }),
  )
  for (const step of steps) {
    apply(job.project, step)
    const author = agents.find((node) => node.id === step.fold.events.at(-1)!.agent_id) ?? agent
    writer.append(newEvent('file.change', place(job, author), revertEvent(db, step)))
  }
  writer.flush()
  return { reverted: true, files: steps.map((step) => step.fold.original_path) }
}

/**
 * An agent that works in a git worktree (an isolated child, or an agent under one) changed the
 * worktree's files, not the project's (its changes carry the worktree's branch). Revert does not
 * reach into a worktree: while the branch is neither merged nor discarded, Merge or Discard decide
 * it. A merged branch's changes in the project (tool `merge`) are the project's, and revert undoes them.
 */
function worktreeBlocks(db: SqliteDatabase, job: Job, agents: AgentNode[], held: Set<string>, changes: FileChangeEvent[]): RevertBlock[] {
  const pending = new Set(
    jobWorktrees(db, job.id)
      .filter((view) => view.state !== 'merged' && view.state !== 'discarded')
      .map((view) => view.branch),
  )
  if (pending.size === 0) return []
  const blocked = new Map<string, string>()
  for (const event of changes) {
    const { branch } = event.data
    if (event.agent_id !== null && held.has(event.agent_id) && branch !== undefined && pending.has(branch))
      blocked.set(event.agent_id, branch)
  }
  return agents
    .filter((node) => blocked.has(node.id))
    .map((node) => ({
      path: '',
      reason: 'worktree' as const,
      agent_id: node.id,
      label: node.label,
      message: `${node.label} (${node.id}) changed files in the git worktree of branch ${blocked.get(node.id)}, not in the project: use Merge or Discard on that branch instead`,
    }))
}

const place = (job: Job, agent: AgentNode) => ({
  ts: new Date().toISOString(),
  job_id: job.id,
  agent_id: agent.id,
  parent_id: agent.parent_id,
  depth: agent.depth,
})

/** The file's path in the project, refusing one that leaves it. */
function inProject(project: string, path: string): string | null {
  const full = resolve(project, path)
  const inside = relative(resolve(project), full)
  return inside === '' || inside.startsWith('..') || isAbsolute(inside) ? null : full
}

const readIfThere = (file: string): Buffer | null => (existsSync(file) ? readFileSync(file) : null)

function checkDisk(db: SqliteDatabase, project: string, fold: FileFold, blocks: RevertBlock[]): Step | null {
  const block = (reason: RevertBlock['reason'], message: string) => {
    blocks.push({ path: fold.path, reason, message: `${fold.path}: ${message}` })
    return null
  }
  const now = inProject(project, fold.path)
  const was = inProject(project, fold.original_path)
  if (!now || !was) return block('disk_differs', 'its path leaves the project folder')
  const current = readIfThere(now)
  if (fold.hash_after === null ? current !== null : current === null || fileContentHash(current) !== fold.hash_after) {
    return block('disk_differs', 'the file on disk is no longer what this agent left (changed since, outside the trace)')
  }
  let before: Buffer | null = null
  if (fold.hash_before !== null || fold.bytes_before !== null) {
    before = fold.hash_before === null ? null : (getFileContent(db, fold.hash_before) ?? null)
    if (!before) return block('content_missing', 'its content before is not stored (over 1 MiB or not read), so it cannot be put back')
    if (was !== now && existsSync(was)) return block('disk_differs', `${fold.original_path} exists again on disk`)
  }
  return { fold, before, current }
}

function apply(project: string, step: Step): void {
  const now = inProject(project, step.fold.path)!
  const was = inProject(project, step.fold.original_path)!
  if (step.before === null || was !== now) rmSync(now, { force: true })
  if (step.before !== null) {
    mkdirSync(dirname(was), { recursive: true })
    writeFileSync(was, step.before)
  }
}

function revertEvent(db: SqliteDatabase, step: Step) {
  const { fold, before, current } = step
  const kind: FileChangeKind =
    before === null ? 'deleted' : current === null ? 'created' : fold.path !== fold.original_path ? 'renamed' : 'modified'
  if (current) putFileContent(db, current)
  return {
    path: before === null ? fold.path : fold.original_path,
    kind,
    ...(kind === 'renamed' ? { from_path: fold.path } : {}),
    by_tool_call: null,
    tool: 'revert',
    bytes_before: current?.byteLength ?? null,
    bytes_after: before?.byteLength ?? null,
    hash_before: fold.hash_after,
    hash_after: fold.hash_before,
    content_stored: true,
  }
}
