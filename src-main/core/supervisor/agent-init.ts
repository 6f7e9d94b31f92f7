import { withInstructions } from '../job/project-instructions'
import { resolveModel } from '../job/profiles'
import { describeProfiles } from '../job/profiles/describe'
import type { AgentInit, SandboxPolicy } from '../protocol/messages'
import type { ProviderConfig } from '../providers/provider-config'
import type { AgentRuntime } from './runtime'
import { projectDirOf } from './agent-worktrees'

/** The model an agent runs on: its request's or profile's choice; `light` falls back to the main model. */
export const modelFor = (agent: AgentRuntime): string => resolveModel(agent.request?.model ?? agent.profile.model, agent.job.settings)

/** The `start` message's payload: everything an agent process knows of its job (never a key, URL or script). */
export function agentInit(agent: AgentRuntime, firstMessage: string, resume?: AgentInit['resume']): AgentInit {
  const instructions = instructionsFor(agent)
  return {
    agent_id: agent.id,
    job_id: agent.job.id,
    depth: agent.depth,
    project_dir: projectDirOf(agent),
    profile: instructions
      ? { ...agent.profile, system_prompt: withInstructions(agent.profile.system_prompt, instructions) }
      : agent.profile,
    first_message: firstMessage,
    ...(resume ? { resume } : {}),
    spawnable_profiles: agent.profile.can_delegate ? describeProfiles(agent.job.profiles) : undefined,
    provider: { kind: providerKind(agent), model: agent.model ?? agent.job.settings.model },
    sandbox: sandboxPolicy(agent),
  }
}

/** The project's instructions reach the root only; subagents get a self-contained task instead. */
export const instructionsFor = (agent: AgentRuntime) => (agent.parent === null ? (agent.job.context.instructions ?? null) : null)

const providerKind = (agent: AgentRuntime): AgentInit['provider']['kind'] =>
  agent.job.settings.provider === 'scripted' ? 'scripted' : agent.job.settings.provider === 'anthropic' ? 'anthropic' : 'openai'

/** How `bash` runs for this job: sandboxed unless the job said otherwise, with Arbor's own data hidden. */
export function sandboxPolicy(agent: AgentRuntime): SandboxPolicy {
  const settings = agent.job.settings
  return {
    mode: settings.no_sandbox ? 'off' : 'sandboxed',
    network: settings.allow_network ?? false,
    protected_paths: agent.job.context.protectedPaths ?? [],
  }
}

/** Where the supervisor sends an agent's model calls; this (with the key) never leaves the supervisor. */
export function providerConfig(agent: AgentRuntime): ProviderConfig {
  const settings = agent.job.settings
  const model = agent.model ?? settings.model
  if (settings.provider !== 'scripted') {
    const connection = agent.job.context.connection
    return {
      kind: settings.provider === 'anthropic' ? 'anthropic' : 'openai',
      model,
      base_url: connection?.base_url ?? settings.base_url ?? null,
      api_key: connection?.api_key ?? null,
    }
  }
  const plan = settings.script
  const script = !plan ? [] : agent.parent ? (plan.children[agent.label] ?? []) : plan.root
  // A resumed agent of an earlier session goes on with its script where it had got to.
  return { kind: 'scripted', model, script: script.slice(agent.steps) }
}

/** What the root's agent.start records of the project instructions it was given. */
export function projectInstructionsData(agent: AgentRuntime): Record<string, unknown> {
  const instructions = instructionsFor(agent)
  if (!instructions) return {}
  return { project_instructions: { file: instructions.file, bytes: instructions.bytes, truncated: instructions.truncated } }
}
