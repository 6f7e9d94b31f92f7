/** Helpers for the agent's tests: a fixed clock, fixed ids, no-wait sleep, a recording supervisor. */
import { createScriptedProvider } from '../providers/scripted'
import type { Provider, ProviderRequest, Sleep } from '../providers/types'
import { ProviderError } from '../providers/errors'
import { toSupervisorSchema, type AgentInit, type ToAgent, type ToSupervisor } from '../protocol/messages'
import { HistoryReceiver } from '../protocol/model-history'
import type { ScriptTurn } from '../trace/model'
import { runAgent, type RunAgentOptions } from './loop'
import { builtinProfiles, type Profile } from '../job/profiles'
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

/** The script each test init runs (the supervisor keeps scripts; agents never see them). */
const scripts = new WeakMap<AgentInit, ScriptTurn[]>()
export const scriptOf = (init: AgentInit): ScriptTurn[] => scripts.get(init) ?? []

export function makeInit(projectDir: string, script: ScriptTurn[], profile: Partial<Profile> & { name?: string } = {}): AgentInit {
  const base = builtinProfiles[profile.name ?? 'general'] ?? builtinProfiles.general!
  const init: AgentInit = {
    agent_id: 'agent_1',
    job_id: 'job_1',
    depth: 0,
    project_dir: projectDir,
    profile: { ...base, ...profile },
    first_message: 'Do the task.',
    provider: { kind: 'scripted', model: 'scripted-model' },
  }
  scripts.set(init, script)
  return init
}

/**
 * `provider`, keeping a copy of every request the loop makes: what the model was sent, call by
 * call. The loop records no `llm.call` (the supervisor does, for the calls it makes), so a test
 * counts the loop's model calls here.
 */
export function recordingRequests(provider: Provider): { provider: Provider; requests: ProviderRequest[] } {
  const requests: ProviderRequest[] = []
  return {
    requests,
    provider: {
      kind: provider.kind,
      model: provider.model,
      stream(request) {
        const { signal: _signal, ...sent } = request
        requests.push({ ...sent, messages: structuredClone(request.messages) })
        return provider.stream(request)
      },
    },
  }
}

/**
 * Answers an agent process's `model_call`s with `provider`, as the supervisor does (for tests that
 * fork the agent entry by themselves). Returns the handler for each message the process sends.
 */
export function serveModelCalls(provider: Provider, send: (message: ToAgent) => void): (message: ToSupervisor) => void {
  const running = new Map<string, AbortController>()
  const history = new HistoryReceiver()
  return (message) => {
    if (message.type === 'model_cancel') return running.get(message.call_id)?.abort()
    if (message.type !== 'model_call') return
    const abort = new AbortController()
    running.set(message.call_id, abort)
    const request = history.apply(message)
    void (async () => {
      try {
        if ('error' in request) throw new ProviderError('other', request.error)
        for await (const event of provider.stream({ ...request, signal: abort.signal })) {
          send({ type: 'model_event', call_id: message.call_id, events: [event] })
        }
      } catch (error) {
        const code = ProviderError.isInstance(error) ? error.code : 'other'
        send({
          type: 'model_error',
          call_id: message.call_id,
          code,
          message: error instanceof Error ? error.message : String(error),
          status: null,
        })
      } finally {
        running.delete(message.call_id)
      }
    })()
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
  const recorded = recordingRequests(
    overrides.provider ?? createScriptedProvider({ model: init.provider.model, script: scriptOf(init), sleep: noWait }),
  )
  const outcome = await runAgent({
    init,
    tools: builtinTools,
    link: supervisor.link,
    clock: fixedClock,
    ids: fixedIds(),
    ...overrides,
    provider: recorded.provider,
  })
  return { outcome, supervisor, requests: recorded.requests }
}
