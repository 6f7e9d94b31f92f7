import type { parseArgs } from 'node:util'

/**
 * The CLI's flags, and the values parseArgs makes of them: a leaf the commands import, so that
 * main.ts can load each command only when it runs.
 */
export const options = {
  db: { type: 'string' },
  export: { type: 'string' },
  task: { type: 'string' },
  continue: { type: 'string' },
  provider: { type: 'string' },
  model: { type: 'string' },
  'light-model': { type: 'string' },
  'base-url': { type: 'string' },
  'max-depth': { type: 'string' },
  'max-children': { type: 'string' },
  'job-token-budget': { type: 'string' },
  'job-cost-budget': { type: 'string' },
  'agent-timeout': { type: 'string' },
  'max-spawns-per-turn': { type: 'string' },
  'max-spawns-per-minute': { type: 'string' },
  'restart-crashed': { type: 'string' },
  'max-agents': { type: 'string' },
  'on-budget': { type: 'string' },
  'rate-limit-wait': { type: 'string' },
  'max-model-calls': { type: 'string' },
  'allow-network': { type: 'boolean' },
  'no-key': { type: 'boolean' },
  'no-sandbox': { type: 'boolean' },
  yes: { type: 'boolean' },
  'auto-approve-subagents': { type: 'boolean' },
  'subagent-approvals': { type: 'string' },
  json: { type: 'boolean' },
  job: { type: 'string' },
  last: { type: 'boolean' },
  out: { type: 'string' },
  format: { type: 'string' },
  'with-file-contents': { type: 'boolean' },
  'otlp-endpoint': { type: 'string' },
  header: { type: 'string', multiple: true },
  port: { type: 'string' },
  'warm-pool': { type: 'string' },
  agent: { type: 'string' },
  subtree: { type: 'boolean' },
  diff: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const

export type CliValues = ReturnType<typeof parseArgs<{ options: typeof options; allowPositionals: true }>>['values']
