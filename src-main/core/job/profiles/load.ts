import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { builtinProfiles, validateProfile, type Profile } from '../profiles'
import { readProfileFile } from './profile-file'
import type { ProfileSource } from './tool-names'
import { mcpConfigFile, readMcpJson, type McpServerSpec } from '../mcp-config'

/** A profile file that did not load; `file` is relative to the project. */
export interface ProfileLoadError {
  file: string
  field: string
  message: string
}

/** Something loaded with a change the user should know of (an ignored tool, an override). */
export interface ProfileLoadWarning {
  file: string
  message: string
}

export interface LoadedProfiles {
  /** The built-in profiles and every user profile that loaded, by name; a user profile replaces a built-in of the same name. */
  profiles: Record<string, Profile>
  errors: ProfileLoadError[]
  warnings: ProfileLoadWarning[]
  /**
   * The MCP servers the profiles may use, by name: the project's `.mcp.json` and the profiles'
   * inline ones (with their secrets: the supervisor's only). Absent: none.
   */
  mcpServers?: Record<string, McpServerSpec>
}

/** Where user profiles live, in load order: a later directory's profile replaces an earlier one's of the same name. */
export const profileDirectories: { dir: string; source: ProfileSource }[] = [
  { dir: '.claude/agents', source: 'claude' },
  { dir: '.arbor/agents', source: 'arbor' },
]

/**
 * The profiles of a project (product.md §2): the built-ins, then `<project>/.claude/agents/*.md`
 * (Claude Code's format), then `<project>/.arbor/agents/*.md`. A broken file is reported with its
 * file and field and skipped; the others still load. Never throws for a user file.
 */
export function loadProfiles(
  projectDir: string,
  builtins: Record<string, Profile> = builtinProfiles,
  env: NodeJS.ProcessEnv = process.env,
): LoadedProfiles {
  const profiles: Record<string, Profile> = {}
  for (const [name, profile] of Object.entries(builtins)) profiles[name] = validateProfile(profile)
  const origin = new Map<string, { file: string; dir: string }>()
  const errors: ProfileLoadError[] = []
  const warnings: ProfileLoadWarning[] = []
  const mcpJson = readMcpJson(projectDir, env)
  errors.push(...mcpJson.problems)
  const mcpServers: Record<string, McpServerSpec> = { ...mcpJson.servers }
  const inlineOrigin = new Map<string, string>()

  for (const { dir, source } of profileDirectories) {
    for (const name of markdownFiles(join(projectDir, dir), dir, errors)) {
      const file = `${dir}/${name}`
      let text: string
      try {
        text = readFileSync(join(projectDir, dir, name), 'utf8')
      } catch (error) {
        errors.push({ file, field: 'file', message: `cannot be read: ${(error as Error).message}` })
        continue
      }
      const read = readProfileFile(text, source)
      for (const message of read.warnings) warnings.push({ file, message })
      for (const problem of read.errors) errors.push({ file, ...problem })
      if (!read.profile) continue
      const profile = read.profile
      if (!addMcpServers(profile, read.mcpInline ?? {}, file, { mcpServers, inlineOrigin, errors, warnings })) continue
      const earlier = origin.get(profile.name)
      if (earlier?.dir === dir) {
        errors.push({ file, field: 'name', message: `profile "${profile.name}" is already defined in ${earlier.file}` })
        continue
      }
      if (earlier) {
        warnings.push({ file, message: `profile "${profile.name}" replaces the one in ${earlier.file}` })
      } else if (builtins[profile.name]) {
        warnings.push({ file, message: `profile "${profile.name}" replaces the built-in profile of that name` })
      }
      profiles[profile.name] = profile
      origin.set(profile.name, { file, dir })
    }
  }
  return { profiles, errors, warnings, ...(Object.keys(mcpServers).length > 0 ? { mcpServers } : {}) }
}

/**
 * A profile's MCP servers: its inline ones join the job's (replacing `.mcp.json`'s of the same
 * name, with a warning); a name defined nowhere is an error for the profile, which does not load.
 */
function addMcpServers(
  profile: Profile,
  inline: Record<string, McpServerSpec>,
  file: string,
  into: {
    mcpServers: Record<string, McpServerSpec>
    inlineOrigin: Map<string, string>
    errors: ProfileLoadError[]
    warnings: ProfileLoadWarning[]
  },
): boolean {
  for (const [name, spec] of Object.entries(inline)) {
    const earlier = into.inlineOrigin.get(name)
    if (earlier !== undefined && JSON.stringify(into.mcpServers[name]?.config) !== JSON.stringify(spec.config)) {
      into.errors.push({ file, field: `mcpServers.${name}`, message: `MCP server "${name}" is already defined differently in ${earlier}` })
      return false
    }
  }
  const unknown = (profile.mcp_servers ?? []).filter((name) => !inline[name] && !into.mcpServers[name])
  if (unknown.length > 0) {
    const known = Object.keys(into.mcpServers)
    const where = known.length > 0 ? `${mcpConfigFile} defines ${known.join(', ')}` : `there is no such server in ${mcpConfigFile}`
    into.errors.push({
      file,
      field: 'mcpServers',
      message: `unknown MCP server ${unknown.map((name) => `"${name}"`).join(', ')}; ${where}`,
    })
    return false
  }
  for (const [name, spec] of Object.entries(inline)) {
    if (into.mcpServers[name] && !into.inlineOrigin.has(name)) {
      into.warnings.push({ file, message: `MCP server "${name}" replaces the one in ${mcpConfigFile}` })
    }
    into.mcpServers[name] = { ...spec, source: file }
    into.inlineOrigin.set(name, file)
  }
  return true
}

/** The `*.md` files of a directory, sorted; none when it does not exist. */
function markdownFiles(path: string, dir: string, errors: ProfileLoadError[]): string[] {
  try {
    return readdirSync(path)
      .filter((name) => name.toLowerCase().endsWith('.md'))
      .sort()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT' && code !== 'ENOTDIR')
      errors.push({ file: dir, field: 'file', message: `cannot be listed: ${(error as Error).message}` })
    return []
  }
}
