/** A profile (agent type): what an agent may do and how much. product.md §2. */
export interface Profile {
  name: string
  description: string
  system_prompt: string
  tools: string[]
  max_steps: number
  /** null: the model's own window. */
  context_token_budget: number | null
  /** null: the job's budget. */
  total_token_budget: number | null
  model: 'main' | 'light' | string
  result_contract: 'text' | 'explore'
  can_delegate: boolean
}

export const readOnlyTools = ['read_file', 'list_files', 'search', 'attempt_completion']
export const writingTools = ['write_file', 'edit_file', 'bash', 'task']

/** Tools this walking skeleton implements; the rest of product.md §2 comes with the runtime issue. */
export const implementedTools = ['read_file', 'list_files', 'task', 'attempt_completion']

export const builtinProfiles: Record<string, Profile> = {
  general: {
    name: 'general',
    description: 'The default root agent: plans, delegates with `task`, and reports.',
    system_prompt:
      'You are Arbor, a code agent working in the project folder. Delegate self-contained subtasks with the task tool, then finish with attempt_completion.',
    tools: ['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'bash', 'task', 'attempt_completion'],
    max_steps: 50,
    context_token_budget: null,
    total_token_budget: null,
    model: 'main',
    result_contract: 'text',
    can_delegate: true,
  },
  explore: {
    name: 'explore',
    description: 'Read-only investigation of the repository; returns one explore JSON object.',
    system_prompt:
      'You are an Explore Agent. Inspect the repository with read-only tools and return exactly one JSON object: {"status":"completed|partial","summary":"...","findings":["..."],"evidence":["relative/path:line"],"unresolved_questions":["..."]}. Do not use markdown fences.',
    tools: readOnlyTools,
    max_steps: 12,
    context_token_budget: 16_000,
    total_token_budget: 32_000,
    model: 'light',
    result_contract: 'explore',
    can_delegate: false,
  },
  worker: {
    name: 'worker',
    description: 'Does a self-contained change with every tool but task.',
    system_prompt: 'You are a worker agent. Complete the task in the project folder, then call attempt_completion.',
    tools: ['read_file', 'list_files', 'search', 'write_file', 'edit_file', 'bash', 'attempt_completion'],
    max_steps: 30,
    context_token_budget: 64_000,
    total_token_budget: 200_000,
    model: 'main',
    result_contract: 'text',
    can_delegate: false,
  },
}
