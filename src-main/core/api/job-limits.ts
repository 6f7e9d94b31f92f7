/**
 * The new-job form's numeric fields' upper bounds (the form, the API and `arbor run` all check
 * these). A leaf without zod: the CLI's usage text prints them before any command loads.
 */
export const newJobLimits = {
  max_depth: 8,
  max_concurrent_children: 64,
  max_spawns_per_turn: 1000,
  max_spawns_per_minute: 10_000,
  job_token_budget: 1_000_000_000,
  job_cost_budget: 100_000,
  agent_timeout_s: 86_400,
  restart_crashed: 5,
  max_agents: 100_000,
  rate_limit_wait_minutes: 1440,
} as const

/** The longest message a user may send to a running agent (characters; 32 KiB of ASCII). */
export const maxSteerMessage = 32 * 1024

/** The longest prompt a user may give a held or queued spawn in place of its own (characters; 32 KiB of ASCII). */
export const maxSpawnPrompt = 32 * 1024

/** The longest message a user may send to an agent with a denial (characters). */
export const maxApprovalMessage = 4000

/** The highest cap on concurrent model calls per endpoint Settings and `--max-model-calls` take. */
export const maxModelCallsLimit = 1000
