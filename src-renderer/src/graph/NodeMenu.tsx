import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react'
import { useShallow } from 'zustand/react/shallow'
import { useArbor, type ArborState } from '../store'
import type { NodeAnchor } from '../store/types'
import { focusInspectorBox, focusSteerBox } from '../shortcuts/run-shortcut'
import { nextEntryIndex, nodeMenuEntries, type NodeMenuAction } from './node-menu'

function selectMenu(state: ArborState) {
  const anchor = state.nodeMenu
  const agent = anchor ? state.tree.agents[anchor.agentId] : undefined
  return {
    anchor,
    label: agent?.label ?? '',
    status: agent?.status,
    heldByLimit: anchor ? state.tree.held[anchor.agentId] !== undefined : false,
    unresponsive: anchor ? state.tree.unresponsive[anchor.agentId] !== undefined : false,
    changedFiles: anchor ? subtreeChanged(state, anchor.agentId) : false,
    worktreeState: anchor ? state.tree.worktrees[anchor.agentId]?.state : undefined,
    worktreePresent: anchor ? state.tree.worktrees[anchor.agentId]?.present === true : false,
    // An imported job, or a replay, is read-only: its nodes can only be inspected.
    readOnly: state.replay !== null || (state.tree.jobId !== null && state.jobs[state.tree.jobId]?.imported === true),
  }
}

/** Whether the agent or one under it changed a file (the badges' counts). */
function subtreeChanged(state: ArborState, agentId: string): boolean {
  const counts = state.changeCounts.jobId === state.tree.jobId ? state.changeCounts.byAgent : {}
  const pending = [agentId]
  for (let id = pending.pop(); id !== undefined; id = pending.pop()) {
    if ((counts[id] ?? 0) > 0) return true
    pending.push(...(state.tree.children[id] ?? []))
  }
  return false
}

/** Carries out a menu entry on its agent; the menu has closed by then. */
function runEntry(action: NodeMenuAction, anchor: NodeAnchor): void {
  const state = useArbor.getState()
  const { agentId } = anchor
  switch (action) {
    case 'inspect':
      return state.inspect(agentId)
    case 'retryNow':
      return void state.retryNow(agentId)
    case 'steer':
      state.inspect(agentId)
      // The message box is drawn with the inspector: focus it once it is there.
      requestAnimationFrame(() => focusSteerBox(agentId))
      return
    case 'wrapUp':
      return void state.wrapUpAgent(agentId)
    case 'followUp':
      state.inspect(agentId)
      requestAnimationFrame(() => focusInspectorBox(agentId, 'agent-follow-up'))
      return
    case 'kill':
      // Asks first for the root or more than five agents (store/kill-rule.ts).
      return state.askKill(agentId)
    case 'editPrompt':
      return state.openPromptEdit(anchor)
    case 'restart':
      return void state.restartAgent(agentId)
    case 'allowSpawn':
      return void state.allowSpawn(agentId)
    case 'setBudget':
      return state.openBudgetEdit(anchor)
    case 'cancelSpawn':
      return void state.cancelSpawn(agentId)
    case 'showChanges':
      return state.showChanges(agentId)
    case 'revertChanges':
      return state.openRevert(agentId)
    case 'mergeBranch':
      return void state.mergeBranch(agentId)
    case 'discardBranch':
      return void state.discardBranch(agentId)
  }
}

/** Keeps a popup of about `width` × `height` px opened at (x, y) inside the window. */
export function clampToWindow(x: number, y: number, width: number, height: number): { left: number; top: number } {
  const margin = 8
  return {
    left: Math.max(margin, Math.min(x, window.innerWidth - width - margin)),
    top: Math.max(margin, Math.min(y, window.innerHeight - height - margin)),
  }
}

/**
 * A node's menu (right-click, the node's ⋯ button, or `.` on the selected node): the entries that
 * apply to its state (node-menu.ts). Arrow keys, Home and End move, Enter picks, Escape or a click
 * outside closes it, and the focus goes back where it was.
 */
export function NodeMenu() {
  const { anchor, label, status, readOnly, heldByLimit, unresponsive, changedFiles, worktreeState, worktreePresent } = useArbor(
    useShallow(selectMenu),
  )
  const worktree = worktreeState ? { state: worktreeState, present: worktreePresent } : undefined
  if (!anchor || !status) return null
  // Keyed by agent and place: a menu opened anew starts at its first entry.
  return (
    <OpenMenu
      key={`${anchor.agentId}@${anchor.x},${anchor.y}`}
      anchor={anchor}
      label={label}
      entries={nodeMenuEntries({ status, readOnly, heldByLimit, unresponsive, changedFiles, worktree })}
    />
  )
}

function OpenMenu({ anchor, label, entries }: { anchor: NodeAnchor; label: string; entries: ReturnType<typeof nodeMenuEntries> }) {
  const menu = useRef<HTMLDivElement>(null)
  const opener = useRef<Element | null>(document.activeElement)
  const [active, setActive] = useState(0)
  const [place, setPlace] = useState({ left: anchor.x, top: anchor.y })
  const close = (restoreFocus: boolean) => {
    useArbor.getState().openNodeMenu(null)
    if (restoreFocus && opener.current instanceof HTMLElement) opener.current.focus()
  }

  useLayoutEffect(() => {
    const box = menu.current?.getBoundingClientRect()
    if (box) setPlace(clampToWindow(anchor.x, anchor.y, box.width, box.height))
  }, [anchor.x, anchor.y])
  // The focused entry follows the arrow keys; the entry list changes with the node's state.
  const index = Math.min(active, entries.length - 1)
  useEffect(() => {
    menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')[index]?.focus()
  }, [index, entries.length])
  useEffect(() => {
    const onPointerDown = (event: PointerEvent) => {
      if (!menu.current?.contains(event.target as Node)) close(false)
    }
    // Capture: xyflow's pane stops some pointer events from bubbling.
    document.addEventListener('pointerdown', onPointerDown, true)
    return () => document.removeEventListener('pointerdown', onPointerDown, true)
  }, [])

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape' || event.key === 'Tab') {
      event.preventDefault()
      close(event.key === 'Escape')
      return
    }
    const next = nextEntryIndex(index, entries.length, event.key)
    if (next !== index || ['ArrowDown', 'ArrowUp', 'Home', 'End'].includes(event.key)) {
      event.preventDefault()
      setActive(next)
    }
  }

  return (
    <div
      ref={menu}
      className="node-menu"
      role="menu"
      aria-label={`Actions for ${label}`}
      data-testid="node-menu"
      data-agent-id={anchor.agentId}
      style={{ left: place.left, top: place.top }}
      onKeyDown={onKeyDown}
      onContextMenu={(event) => event.preventDefault()}
    >
      <div className="node-menu__title" aria-hidden="true">
        {label}
      </div>
      {entries.map((entry, position) => (
        <button
          key={entry.action}
          type="button"
          role="menuitem"
          tabIndex={position === index ? 0 : -1}
          className={`node-menu__item${entry.danger ? ' danger' : ''}`}
          data-testid={`node-menu-${entry.action}`}
          onMouseEnter={() => setActive(position)}
          onClick={() => {
            // Steer and the prompt dialog take the focus themselves; Inspect and Kill give it back to the node.
            close(
              entry.action === 'inspect' ||
                entry.action === 'kill' ||
                entry.action === 'cancelSpawn' ||
                entry.action === 'allowSpawn' ||
                entry.action === 'restart' ||
                entry.action === 'discardBranch',
            )
            runEntry(entry.action, anchor)
          }}
        >
          {entry.label}
        </button>
      ))}
    </div>
  )
}
