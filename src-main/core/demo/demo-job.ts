import { readdir, stat } from 'node:fs/promises'
import path from 'node:path'
import type { ScriptPlan, ScriptTurn } from '../trace/model'

/**
 * The built-in scripted jobs: no key needed, real files read, and slow enough to watch
 * (seconds, not milliseconds). `arbor demo` and the UI's "Run demo" use demoJob; a task typed
 * in the UI with the scripted provider uses scriptedJob.
 */
export const demoTask = 'Survey this project: map its layout and read its key files in parallel, then summarise.'

const demoAreas = ['Map the layout', 'Read the first key file', 'Read the second key file', 'Read the third key file']

export async function demoJob(projectDir: string): Promise<{ task: string; script: ScriptPlan }> {
  const files = await pickTextFiles(projectDir, demoAreas.length)
  const children: Record<string, ScriptTurn[]> = {}
  demoAreas.forEach((description, index) => {
    const file = files.length > 0 ? files[index % files.length] : undefined
    // Staggered so the children finish one by one and the queued fourth one is visible.
    children[description] = exploreScript(description, file, 1000 + index * 450)
  })
  return {
    task: demoTask,
    script: {
      root: [
        {
          delay_ms: 2500,
          text: 'I will split the survey into four read-only explorations and run them in parallel.',
          tool_calls: demoAreas.map((description) => ({
            name: 'task',
            arguments: {
              description,
              subagent_type: 'explore',
              prompt: `${description} of the project and report what you find as explore JSON.`,
              context: { area: description },
            },
          })),
        },
        {
          delay_ms: 1200,
          tool_calls: [
            {
              name: 'attempt_completion',
              arguments: {
                result: `Survey finished: ${demoAreas.length} explorations covered the layout and ${files.length} key files (${files.join(', ') || 'none found'}).`,
              },
            },
          ],
        },
      ],
      children,
    },
  }
}

export async function scriptedJob(projectDir: string, task: string): Promise<{ task: string; script: ScriptPlan }> {
  const files = await pickTextFiles(projectDir, 2)
  const areas = ['Look for relevant files', 'Check the details']
  const children: Record<string, ScriptTurn[]> = {}
  areas.forEach((description, index) => {
    children[description] = exploreScript(description, files[index % Math.max(files.length, 1)], 900 + index * 500)
  })
  return {
    task,
    script: {
      root: [
        { delay_ms: 800, text: 'Let me look at the project first.', tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] },
        {
          delay_ms: 1000,
          tool_calls: areas.map((description) => ({
            name: 'task',
            arguments: { description, subagent_type: 'explore', prompt: `${description} for this task: ${task}` },
          })),
        },
        {
          delay_ms: 800,
          tool_calls: [{ name: 'attempt_completion', arguments: { result: `Scripted run of "${task}" finished after two explorations.` } }],
        },
      ],
      children,
    },
  }
}

function exploreScript(description: string, file: string | undefined, stepDelay: number): ScriptTurn[] {
  const turns: ScriptTurn[] = [{ delay_ms: stepDelay, tool_calls: [{ name: 'list_files', arguments: { path: '.' } }] }]
  if (file) turns.push({ delay_ms: stepDelay, tool_calls: [{ name: 'read_file', arguments: { path: file, limit: 40 } }] })
  const result = {
    status: 'completed',
    summary: file ? `${description}: read ${file}.` : `${description}: listed the project.`,
    findings: file ? [`${file} is one of the project's key files`] : ['the project folder has no readable text files at its top level'],
    evidence: file ? [`${file}:1`] : ['.'],
    unresolved_questions: [],
  }
  turns.push({ delay_ms: stepDelay, tool_calls: [{ name: 'attempt_completion', arguments: { result: JSON.stringify(result) } }] })
  return turns
}

const preferred = ['README.md', 'package.json', 'pyproject.toml', 'Cargo.toml', 'go.mod', 'Makefile']
const textExtensions = new Set([
  '.md',
  '.txt',
  '.json',
  '.ts',
  '.tsx',
  '.js',
  '.py',
  '.rs',
  '.go',
  '.toml',
  '.yaml',
  '.yml',
  '.css',
  '.html',
])

/** Up to `count` small text files at the project's top level, well-known names first. */
async function pickTextFiles(projectDir: string, count: number): Promise<string[]> {
  let names: string[]
  try {
    names = await readdir(projectDir)
  } catch {
    return []
  }
  const candidates = names
    .filter((name) => preferred.includes(name) || textExtensions.has(path.extname(name).toLowerCase()))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
  const picked: string[] = []
  for (const name of candidates) {
    if (picked.length >= count) break
    const info = await stat(path.join(projectDir, name)).catch(() => null)
    if (info?.isFile() && info.size < 200_000) picked.push(name)
  }
  return picked
}

const rank = (name: string): number => {
  const index = preferred.indexOf(name)
  return index === -1 ? preferred.length : index
}
