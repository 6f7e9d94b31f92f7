/**
 * The prompt under an agent's label in the inspector header. A subagent's task is its label (the
 * parent's `description`) then its prompt: the header already shows the label, so it is not said
 * twice. Any other task is shown whole.
 */
export function taskBody(label: string, task: string): string {
  const prefix = `${label}\n\n`
  return task.startsWith(prefix) && task.length > prefix.length ? task.slice(prefix.length) : task
}
