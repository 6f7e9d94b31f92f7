import { completionTool, type Profile } from '../profiles'

/**
 * The profiles an agent may spawn, as text for the `task` tool's description: one line each
 * with its name (the `subagent_type`), description, tools and model. `attempt_completion` is left
 * out of the tools: every agent has it.
 */
export function describeProfiles(profiles: Record<string, Profile>, options: { exclude?: string[] } = {}): string {
  const lines = Object.values(profiles)
    .filter((profile) => !options.exclude?.includes(profile.name))
    .map((profile) => {
      const tools = profile.tools.filter((tool) => tool !== completionTool)
      const details = [`tools: ${tools.length > 0 ? tools.join(', ') : 'none'}`, `model: ${profile.model}`]
      if (profile.result_contract === 'explore') details.push('returns explore JSON')
      return `- ${profile.name}: ${oneLine(profile.description)} (${details.join('; ')})`
    })
  if (lines.length === 0) return 'No subagent types are available.'
  return ['Available subagent types (use the name as subagent_type):', ...lines].join('\n')
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim()
