import { attemptCompletionTool } from './attempt-completion'
import { listFilesTool } from './list-files'
import { readFileTool } from './read-file'
import { taskTool } from './task'
import type { Tool } from './types'

/** Every tool this build implements; a profile's allowlist picks among them. */
export const builtinTools: Tool[] = [readFileTool, listFilesTool, taskTool, attemptCompletionTool]
