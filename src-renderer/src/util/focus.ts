/** Keyboard focus for the dialog and the settings page: Tab stays inside, focus returns on close. */

const focusableSelector = [
  'a[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  '[tabindex]:not([tabindex="-1"])',
].join(',')

export function focusables(root: HTMLElement): HTMLElement[] {
  // Skips what is hidden (display: none has no boxes).
  return [...root.querySelectorAll<HTMLElement>(focusableSelector)].filter((element) => element.getClientRects().length > 0)
}

/** On Tab at the last focusable (or Shift-Tab at the first), wraps around inside `root`. */
export function trapTab(event: KeyboardEvent, root: HTMLElement | null): void {
  if (!root || event.key !== 'Tab') return
  const items = focusables(root)
  const first = items[0]
  const last = items[items.length - 1]
  if (!first || !last) {
    event.preventDefault()
    return
  }
  const active = document.activeElement
  const inside = active instanceof HTMLElement && root.contains(active)
  if (event.shiftKey && (active === first || !inside)) {
    event.preventDefault()
    last.focus()
  } else if (!event.shiftKey && (active === last || !inside)) {
    event.preventDefault()
    first.focus()
  }
}

/** The element that had focus, to give it back later (if it is still on the page). */
export function rememberFocus(): () => void {
  const previous = document.activeElement
  return () => {
    if (previous instanceof HTMLElement && previous.isConnected && !previous.closest('[inert]')) previous.focus()
  }
}

/** "⌘↵" on a Mac, "Ctrl ↵" elsewhere. */
export const submitShortcut = (): string => (/Mac|iPhone|iPad/.test(navigator.platform) ? '⌘↵' : 'Ctrl ↵')
