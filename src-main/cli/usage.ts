import { newJobLimits as limits } from '../core/api/job-limits'
import { groupDigits } from '../core/digits'
import { defaultMaxAgents, spawnGuardDefaults } from '../core/trace/model'

/** The CLI's usage text: printed by --help and after a usage error, so it imports no command's code. */
export const usage = `Usage:
  arbor demo [DIR] [--db FILE] [--export FILE.jsonl]
  arbor run [DIR] --task TEXT [--provider scripted|openai|anthropic|openai_compatible] [--model M]
            [--light-model M] [--base-url URL [--no-key]] [--max-depth N] [--max-children N]
            [--max-spawns-per-turn N] [--max-spawns-per-minute N] [--agent-timeout SECONDS] [--restart-crashed N]
            [--max-agents N] [--rate-limit-wait MINUTES] [--max-model-calls N]
            [--job-token-budget N] [--job-cost-budget USD] [--on-budget pause|stop] [--allow-network]
            [--no-sandbox [--yes]] [--subagent-approvals deny|ask|approve] [--warm-pool N] [--db FILE] [--export FILE.jsonl] [--json]
  arbor run [DIR] --continue JOB|last --task TEXT [--job-token-budget N] [--job-cost-budget USD]
            [--warm-pool N] [--db FILE] [--export FILE.jsonl] [--json]
  arbor resume [--db FILE] (--job ID | --last) [--warm-pool N] [--export FILE.jsonl] [--json]
  arbor export --db FILE (--job ID | --last) --out FILE [--format jsonl|otlp] [--with-file-contents]
  arbor export --db FILE (--job ID | --last) --otlp-endpoint URL [--header NAME=VALUE ...]
  arbor changes JOB|last [--agent ID] [--subtree] [--diff] [--db FILE]
  arbor merge JOB|last --agent ID [--db FILE]
  arbor discard JOB|last --agent ID [--db FILE]
  arbor serve [DIR] [--port N] [--warm-pool N] [--db FILE]
  arbor import FILE.jsonl [--db FILE]
  arbor open FILE.jsonl [--port N] [--db FILE]
  arbor --help | --version

run checks its options as the new-job form does: --max-depth 0-${limits.max_depth} (default 1),
--max-children 1-${limits.max_concurrent_children} (default 3), --max-spawns-per-turn 0-${limits.max_spawns_per_turn} (default ${spawnGuardDefaults.max_spawns_per_turn}),
--max-spawns-per-minute 0-${limits.max_spawns_per_minute} (default ${spawnGuardDefaults.max_spawns_per_minute}; 0 turns a spawn guard off),
--agent-timeout 1-${limits.agent_timeout_s} seconds per agent (default none), --job-token-budget up to
${groupDigits(limits.job_token_budget)}, --job-cost-budget up to ${groupDigits(limits.job_cost_budget)} USD and only with a price for every
model the job uses. --no-key sends no API key to --base-url (a server that needs none; one on
this machine needs none either way). --allow-network lets commands reach the network (off by default).
--subagent-approvals decides subagents' risky commands: deny (default), ask (on the terminal, as
the root's; without one, deny) or approve; --auto-approve-subagents is the same as approve.
--no-sandbox runs commands without the OS sandbox: it prints a warning and asks on a
terminal; without a terminal it needs --yes, else the job is refused (exit 2).
run --continue follows up a job that ended: its root goes on from its whole conversation with
--task TEXT, in the same job and tree, with the job's own settings (only its budgets may be
raised). JOB is an id or a unique part of it (as for export --job); last is DIR's newest job.
resume goes on with a job that was interrupted (Arbor quit, crashed or was killed while it ran):
the agents that were running continue from their histories, held and queued spawns wait again,
finished agents are not run again; output and exit codes as for run. --last is the database's
newest job; a job that is not interrupted, or that another running Arbor resumed, is refused (exit 2).
--on-budget says what a spent budget does: pause (on a terminal: every agent waits, and it asks
for a new budget, or stop) or stop (every agent ends); without a terminal the default, and the
only choice, is stop.
--restart-crashed N (0-${limits.restart_crashed}, default 1): an agent whose process crashes goes on in a
new one from its history, up to N times; 0: a crash ends it.
--max-agents N (0-${groupDigits(limits.max_agents)}, default ${defaultMaxAgents}): subagents the job may spawn, the root not
counted; 0: no cap. run has nobody to allow more: a spawn past it, or past --max-spawns-per-turn,
is refused with the reason (the app and serve hold it on its node for the user to allow or cancel).
--rate-limit-wait MINUTES (0-${groupDigits(limits.rate_limit_wait_minutes)}, default 15): a model call that is rate limited
(429) or finds the API overloaded (503, 529) waits and tries again (honouring retry-after, at
most a minute a wait) for up to MINUTES before the agent fails; 0: it fails after the retries.
--max-model-calls N (default 8, or the Settings value): model calls in flight at once per API
endpoint (provider, base URL and key), so a wide tree does not flood a local server.
--warm-pool N keeps N agent processes started ahead, each used by one agent only (default 2;
0 starts every agent's process when it is needed).

export --job takes a job id or a unique part of it: its start, or the short id the UI shows.
export --otlp-endpoint sends the job's spans to an OpenTelemetry collector over OTLP/HTTP
(protobuf): Langfuse https://cloud.langfuse.com/api/public/otel/v1/traces, Phoenix
http://localhost:6006/v1/traces, Jaeger v2 or the Collector http://localhost:4318/v1/traces.
A full URL is used as given; a base URL without a path gets /v1/traces. --header (repeatable)
adds a request header, e.g. --header "Authorization=Basic …"; header values are never printed.
A collector that cannot be reached, refuses (4xx/5xx) or does not answer in 10 s: exit 1.
Traces are also sent after every job when Settings ▸ Trace export is on (docs/otlp.md).

changes lists the files a job changed (A created, M modified, D deleted, R renamed) with the lines
added and removed and the agents that changed them; --agent ID (an id, a label, or a unique
start of an id) only that agent's own changes, with --subtree its descendants' too; --diff each file's
unified diff, every hunk naming its tool call. Binary files and versions over 1 MiB are named, not diffed.
It also lists the job's worktree branches (agents spawned with isolation: worktree) and their state.

merge applies a worktree agent's branch to its parent's folder (its node's Merge): the files it
applied, or each conflicting file with its hunks and nothing applied (exit 1). discard removes the
agent's worktree and keeps its branch. Both refuse an agent that is still running or ran without a
worktree, and a job another Arbor process runs (exit 2).

Data is stored in $ARBOR_DATA_DIR/arbor.db (default ~/.local/share/arbor/arbor.db) unless --db is given.`
