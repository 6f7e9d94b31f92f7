/** Helpers for the agent's tests: a fixed clock, fixed ids, no-wait sleep, a recording supervisor. */
import { createScriptedProvider } from '../providers/scripted'
import type { Provider, Sleep } from '../providers/types'
import { toSupervisorSchema, type AgentInit, type ToSupervisor } from '../protocol/messages'
import type { ScriptTurn } from '../trace/model'
import { runAgent, type RunAgentOptions } from './loop'
import { builtinProfiles, type Profile } from './profiles'
import { SupervisorLink, type Clock } from './supervisor-link'
import { builtinTools } from './tools/builtin'

export const fixedClock: Clock = { now: () => Date.parse('2025-01-01T00:00:00.000Z') }
export const noWait: Sleep = async (_ms, signal) => {
  if (signal?.aborted) throw signal.reason
}
export const fixedIds = (): (() => string) => {
  let next = 0
  return () => `id_${++next}`
}

export function makeInit(projectDir: string, script: ScriptTurn[], profile: Partial<Profile> & { name?: string } = {}): AgentInit {
  const base = builtinProfiles[profile.name ?? 'general'] ?? builtinProfiles.general!
  return {
    agent_id: 'agent_1',
    job_id: 'job_1',
    depth: 0,
    project_dir: projectDir,
    profile: { ...base, ...profile },
    first_message: 'Do the task.',
    provider: { kind: 'scripted', model: 'scripted-model', script },
  }
}

/** Records every message the agent sends; each must match the protocol. */
export class RecordingSupervisor {
  readonly sent: ToSupervisor[] = []
  onSpawn: (message: Extract<ToSupervisor, { type: 'spawn' }>) => void = (message) =>
    this.link.receive({ type: 'spawn_result', call_id: message.call_id, result: { ok: false, error: 'no children in this test' } })
  /** Risky commands are denied unless a test says otherwise, as the supervisor does for subagents by default. */
  onApproval: (message: Extract<ToSupervisor, { type: 'approval' }>) => void = (message) =>
    this.link.receive({ type: 'approval_result', approval_id: message.approval_id, decision: 'denied', by: 'auto_deny' })
  readonly link = new SupervisorLink((message) => {
    this.sent.push(toSupervisorSchema.parse(message))
    if (message.type === 'spawn') queueMicrotask(() => this.onSpawn(message))
    if (message.type === 'approval') queueMicrotask(() => this.onApproval(message))
  }, fixedClock)

  events(type?: string): { event_type: string; data: Record<string, unknown> }[] {
    return this.sent.flatMap((message) =>
      message.type === 'event' && (type === undefined || message.event_type === type) ? [message] : [],
    )
  }

  data(type: string): Record<string, unknown>[] {
    return this.events(type).map((event) => event.data)
  }
}

export async function runScripted(
  init: AgentInit,
  overrides: Partial<RunAgentOptions> & { provider?: Provider } = {},
  supervisor = new RecordingSupervisor(),
) {
  const script = init.provider.kind === 'scripted' ? init.provider.script : []
  const provider = overrides.provider ?? createScriptedProvider({ model: init.provider.model, script, sleep: noWait })
  const outcome = await runAgent({ init, provider, tools: builtinTools, link: supervisor.link, clock: fixedClock, ids: fixedIds(), ...overrides })
  return { outcome, supervisor }
}
