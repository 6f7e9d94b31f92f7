import { existsSync, readdirSync, statSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { builtinProfiles } from '../job/profiles'
import type { ApiHandlers, ProfileList, ProjectInfo } from '../api/contract'
import { ApiFailure } from '../api/errors'
import { defaultNewJob, keyedProviderIds, type KeyedProviderId, type NewJob } from '../api/job-form'
import { providerInfo, resolveKey } from '../settings/providers'
import { lastUsedModel } from '../store/queries'
import { providerSources, requireProject, type EngineContext } from './context'

type ProjectHandlers = Pick<
  ApiHandlers,
  | 'getState'
  | 'openProject'
  | 'closeProject'
  | 'listRecentProjects'
  | 'completePath'
  | 'chooseProjectFolder'
  | 'chooseTraceFile'
  | 'listProfiles'
  | 'getJobDefaults'
>

/** Opens `dir` as the project and remembers it among the recent ones. */
export function openProjectIn(context: EngineContext, dir: string): ProjectInfo {
  const resolved = path.resolve(expandHome(dir))
  if (!isFolder(resolved)) throw new ApiFailure('invalid_request', `not a folder: ${resolved}`)
  context.project = { path: resolved, name: path.basename(resolved) || resolved }
  context.settings.recordProject(context.project.path, context.project.name)
  return context.project
}

export function projectHandlers(context: EngineContext): ProjectHandlers {
  return {
    getState: async () => ({ project: context.project, all_paused: context.supervisor.spawningPausedForAll }),
    openProject: async ({ path: dir }) => ({ project: openProjectIn(context, dir) }),
    closeProject: async () => {
      context.project = null
      return { project: null }
    },
    listRecentProjects: async () => ({
      projects: context.settings.recentProjects().map((project) => ({ ...project, missing: !existsSync(project.path) })),
    }),
    completePath: async ({ prefix }) => ({ entries: completeFolder(prefix) }),
    // Dialogs belong to the desktop shell, which answers these itself; a browser types a path or uploads.
    chooseProjectFolder: async () => {
      throw new ApiFailure('unsupported', 'there is no folder dialog here: type the folder path')
    },
    chooseTraceFile: async () => {
      throw new ApiFailure('unsupported', 'there is no file dialog here: upload the trace file')
    },
    listProfiles: async () => profileList(context, requireProject(context).path),
    getJobDefaults: async () => {
      const project = requireProject(context)
      const saved = context.settings.jobDefaults(project.path)
      return { job: { ...defaultNewJob(), ...(saved ?? firstJobProvider(context)), task: '' } }
    },
  }
}

/**
 * A project's first job form: the provider and models of the last job run in any project, else
 * the first provider with a key (stored or in the environment) with its saved models; the
 * scripted one only when there is neither. A base URL comes along for an OpenAI-compatible server
 * only, as when the form switches provider, so a local URL never carries over to OpenAI.
 */
function firstJobProvider(context: EngineContext): Pick<NewJob, 'provider' | 'base_url' | 'model' | 'light_model'> | null {
  const sources = providerSources(context)
  const baseUrlFor = (provider: KeyedProviderId, url: string | null) => (provider === 'openai_compatible' ? url : null)
  const last = lastUsedModel(context.db)
  const lastProvider = keyedProviderIds.find((id) => id === last?.provider)
  if (last && lastProvider && last.model) {
    const url = last.base_url ?? providerInfo(lastProvider, sources).base_url
    return { provider: lastProvider, base_url: baseUrlFor(lastProvider, url), model: last.model, light_model: last.light_model }
  }
  const keyed = keyedProviderIds.find((id) => resolveKey(id, sources).key !== null)
  if (keyed === undefined) return null
  const info = providerInfo(keyed, sources)
  return { provider: keyed, base_url: baseUrlFor(keyed, info.base_url), model: info.model, light_model: info.light_model }
}

function profileList(context: EngineContext, projectDir: string): ProfileList {
  const loaded = context.profilesFor(projectDir)
  return {
    profiles: Object.values(loaded.profiles).map((profile) => {
      const builtin = builtinProfiles[profile.name]
      return {
        name: profile.name,
        description: profile.description,
        source: builtin && builtin.system_prompt === profile.system_prompt ? 'builtin' : 'project',
        model: profile.model,
        can_delegate: profile.can_delegate,
      }
    }),
    errors: loaded.errors,
    warnings: loaded.warnings,
  }
}

const maxCompletions = 50

/**
 * Folders whose path starts with `prefix`, for the start screen's path field: `~` is the home
 * folder, a relative prefix is taken from it too. Only folder names are listed, never files;
 * hidden ones only when the typed name starts with a dot.
 */
export function completeFolder(prefix: string): string[] {
  const expanded = expandHome(prefix.trim() || '~/')
  const absolute = path.isAbsolute(expanded) ? expanded : path.join(os.homedir(), expanded)
  const endsWithSeparator = /[\\/]$/.test(absolute)
  const parent = endsWithSeparator ? absolute : path.dirname(absolute)
  const start = endsWithSeparator ? '' : path.basename(absolute)
  let entries
  try {
    entries = readdirSync(parent, { withFileTypes: true })
  } catch {
    return []
  }
  return entries
    .filter((entry) => entry.name.startsWith(start) && (start.startsWith('.') || !entry.name.startsWith('.')))
    .filter((entry) => entry.isDirectory() || (entry.isSymbolicLink() && isFolder(path.join(parent, entry.name))))
    .map((entry) => path.join(parent, entry.name) + path.sep)
    .sort((a, b) => a.localeCompare(b))
    .slice(0, maxCompletions)
}

/**
 * Whether `target` is a folder one can open. Any path a request carries is asked about, and
 * statSync throws for more than a missing one: a NUL byte, a name too long, a file in the way
 * (ENOTDIR), no permission. Each is simply not a folder.
 */
function isFolder(target: string): boolean {
  try {
    return statSync(target, { throwIfNoEntry: false })?.isDirectory() ?? false
  } catch {
    return false
  }
}

const expandHome = (value: string): string => (value === '~' || value.startsWith('~/') ? path.join(os.homedir(), value.slice(1)) : value)
