import { ApiFailure } from '../../core/api/errors'
import { openDatabase } from '../../core/store/database'
import { getAgent } from '../../core/store/queries'
import { agentOf, jobOf } from '../agent-reference'
import type { CliValues } from '../cli-values'
import { printable } from '../printable'
import { JobRefused, UsageError } from '../usage-error'
import { cliEngine } from './engine'

/**
 * `arbor merge JOB --agent ID` and `arbor discard JOB --agent ID`: the node's Merge and Discard
 * for a worktree child, on the terminal, through the same handlers (so the same refusals and the
 * same `worktree` events). Merge applies the child's branch to its parent's folder, or lists the
 * conflicts file by file and applies nothing (exit 1); discard removes the worktree and keeps the
 * branch. A child that is running, did not run in a worktree, or is of a job another Arbor process
 * runs is refused (exit 2).
 */
export async function runMerge(reference: string | undefined, values: CliValues): Promise<number> {
  return onBranch('merge', reference, values, async (engine, agentId, label) => {
    const outcome = await engine.handlers.mergeBranch({ agent_id: agentId })
    if (outcome.merged) {
      const count = outcome.files.length
      console.log(
        `merged ${outcome.branch} (${label}) into its parent's folder: ${count === 0 ? 'no changes' : `${count} ${count === 1 ? 'file' : 'files'}`}`,
      )
      for (const file of outcome.files) console.log(`  ${printable(file)}`)
      return 0
    }
    const count = outcome.conflicts.length
    console.log(`${outcome.branch} (${label}) conflicts in ${count} ${count === 1 ? 'file' : 'files'}: nothing was applied`)
    for (const conflict of outcome.conflicts) {
      console.log(`\nC  ${printable(conflict.path)}`)
      for (const hunk of conflict.hunks) console.log(printable(hunk))
    }
    return 1
  })
}

export async function runDiscard(reference: string | undefined, values: CliValues): Promise<number> {
  return onBranch('discard', reference, values, async (engine, agentId, label) => {
    const { branch, removed } = await engine.handlers.discardBranch({ agent_id: agentId })
    console.log(
      `discarded ${label}'s worktree${removed ? '' : ' (it was already gone)'}; branch ${branch} is kept (git branch -D ${branch} deletes it)`,
    )
    return 0
  })
}

type Engine = ReturnType<typeof cliEngine>['engine']

async function onBranch(
  command: 'merge' | 'discard',
  reference: string | undefined,
  values: CliValues,
  act: (engine: Engine, agentId: string, label: string) => Promise<number>,
): Promise<number> {
  if (!reference || !values.agent) throw new UsageError(`${command} needs a job and an agent: arbor ${command} JOB --agent ID`)
  // No agent runs here: no processes are started ahead.
  const { engine, dbFile } = cliEngine(values.db, undefined, 0)
  try {
    const { agentId, label } = named(dbFile, reference, values.agent)
    return await act(engine, agentId, label)
  } catch (error) {
    if (ApiFailure.isInstance(error) && error.code !== 'internal') throw new JobRefused(`${command}: ${error.message}`)
    throw error
  } finally {
    await engine.close()
  }
}

function named(dbFile: string, reference: string, agent: string): { agentId: string; label: string } {
  const db = openDatabase(dbFile)
  try {
    const agentId = agentOf(db, jobOf(db, reference), agent)
    return { agentId, label: getAgent(db, agentId)?.label ?? agentId }
  } finally {
    db.close()
  }
}
