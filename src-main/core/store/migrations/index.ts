import { initial } from './001-initial'
import { settingsAndImports } from './002-settings-and-imports'
import { jobOwners } from './003-job-owners'
import { traceExport } from './004-trace-export'
import { subagentApprovals } from './005-subagent-approvals'
import { backgroundChildren } from './006-background-children'
import { agentWaits } from './007-agent-waits'
import { branchBudgets } from './008-branch-budgets'
import { appValues } from './009-app-values'
import { fileContents } from './010-file-contents'
import type { Migration } from './migration'

export type { Migration } from './migration'

/** Every migration, in order. Add a file `NNN-name.ts` and list it here. */
export const migrations: readonly Migration[] = [
  initial,
  settingsAndImports,
  jobOwners,
  traceExport,
  subagentApprovals,
  backgroundChildren,
  agentWaits,
  branchBudgets,
  appValues,
  fileContents,
]

migrations.forEach((migration, index) => {
  if (migration.version !== index + 1) {
    throw new Error(`Migration ${migration.name} has version ${migration.version}, expected ${index + 1}`)
  }
})

export const latestSchemaVersion: number = migrations.length
