/** Every keyboard shortcut of the project view, in one place: the handler and the help overlay read this. */

export type ShortcutAction =
  | 'newJob'
  | 'togglePause'
  | 'killBranch'
  | 'wrapUp'
  | 'messageAgent'
  | 'nodeMenu'
  | 'toggleAutoApprove'
  | 'fitView'
  | 'exportJsonl'
  | 'settings'
  | 'help'

export interface Shortcut {
  action: ShortcutAction
  /** The keys as the help overlay shows them. */
  keys: string[]
  description: string
}

export const shortcuts: readonly Shortcut[] = [
  { action: 'newJob', keys: ['N'], description: 'New job' },
  { action: 'togglePause', keys: ['P'], description: 'Pause / resume spawning of the selected job' },
  {
    action: 'killBranch',
    keys: ['K'],
    description: 'Kill the selected agent and its branch (asks first for the root or more than five agents)',
  },
  { action: 'wrapUp', keys: ['W'], description: 'Wrap up the selected agent: it and its branch finish and report within 2 steps' },
  { action: 'messageAgent', keys: ['M'], description: 'Message the selected running agent (it reads it before its next step)' },
  {
    action: 'nodeMenu',
    keys: ['.'],
    description: "The selected agent's menu: inspect, steer, kill, edit or cancel a held spawn (or right-click a node, or its ⋯)",
  },
  { action: 'toggleAutoApprove', keys: ['A'], description: "Subagents' risky commands: deny → ask → approve" },
  { action: 'fitView', keys: ['F'], description: 'Fit the tree in view' },
  { action: 'exportJsonl', keys: ['E'], description: 'Export the job as JSONL' },
  { action: 'settings', keys: [','], description: 'Settings' },
  { action: 'help', keys: ['?'], description: 'Show / hide this list' },
]

/** The plain keys (KeyboardEvent.key, no modifier) of each action. */
const plainKeys: Record<string, ShortcutAction> = {
  n: 'newJob',
  p: 'togglePause',
  k: 'killBranch',
  w: 'wrapUp',
  m: 'messageAgent',
  '.': 'nodeMenu',
  a: 'toggleAutoApprove',
  f: 'fitView',
  e: 'exportJsonl',
  ',': 'settings',
  '?': 'help',
}

/** What the key map reads of an event's target. */
export interface KeyTarget {
  tagName?: string
  type?: string
  isContentEditable?: boolean
}

/** What the key map reads of a KeyboardEvent. */
export interface KeyInput {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  shiftKey: boolean
  repeat?: boolean
  target: KeyTarget | null
}

/** Inputs that take no text: a shortcut still works while one has focus (e.g. the auto-approve switch). */
const nonTextInputs = new Set(['checkbox', 'radio', 'button', 'submit', 'reset', 'range', 'color', 'file'])

/** The user is typing: an input that takes text, a textarea, a select, or an editable element. */
export function isTypingTarget(target: KeyTarget | null): boolean {
  if (!target) return false
  if (target.isContentEditable) return true
  const tag = target.tagName?.toUpperCase()
  if (tag === 'TEXTAREA' || tag === 'SELECT') return true
  if (tag === 'INPUT') return !nonTextInputs.has((target.type ?? 'text').toLowerCase())
  return false
}

/**
 * The action a key press asks for, or null. Never while typing; held-down repeats do nothing.
 * Ctrl/Cmd+N is a second way to a new job (browsers keep it for a new window; Electron lets it
 * through). Any other combination with Ctrl, Cmd or Alt is left to the browser.
 */
export function shortcutFor(input: KeyInput): ShortcutAction | null {
  if (input.repeat || isTypingTarget(input.target)) return null
  const key = input.key
  if ((input.ctrlKey || input.metaKey) && !input.altKey && !input.shiftKey && key.toLowerCase() === 'n') return 'newJob'
  if (input.ctrlKey || input.metaKey || input.altKey) return null
  // '?' needs Shift on most layouts; a shifted letter is not a shortcut.
  if (key.length === 1 && /[a-z]/i.test(key) && input.shiftKey) return null
  return plainKeys[key.length === 1 ? key.toLowerCase() : key] ?? null
}
