import { attemptCompletionTool } from './attempt-completion'
import { awaitTasksTool } from './await-tasks'
import { bashTool } from './bash'
import { editFileTool } from './edit-file'
import { listFilesTool } from './list-files'
import { mergeBranchTool } from './merge-branch'
import { readFileTool } from './read-file'
import { searchTool } from './search'
import { taskTool } from './task'
import type { Tool } from './types'
import { writeFileTool } from './write-file'

/** Every tool this build implements; a profile's allowlist picks among them. */
export const builtinTools: Tool[] = [
  readFileTool,
  listFilesTool,
  searchTool,
  writeFileTool,
  editFileTool,
  bashTool,
  taskTool,
  awaitTasksTool,
  mergeBranchTool,
  attemptCompletionTool,
]
