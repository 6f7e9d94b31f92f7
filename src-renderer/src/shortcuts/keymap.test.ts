import { describe, expect, it } from 'vitest'
import { isTypingTarget, shortcutFor, shortcuts, type KeyInput } from './keymap'

const press = (key: string, extra: Partial<KeyInput> = {}): KeyInput => ({
  key,
  ctrlKey: false,
  metaKey: false,
  altKey: false,
  shiftKey: false,
  target: { tagName: 'BODY' },
  ...extra,
})

describe('shortcutFor', () => {
  it('maps each plain key to its action', () => {
    expect(shortcutFor(press('n'))).toBe('newJob')
    expect(shortcutFor(press('p'))).toBe('togglePause')
    expect(shortcutFor(press('k'))).toBe('killBranch')
    expect(shortcutFor(press('w'))).toBe('wrapUp')
    expect(shortcutFor(press('m'))).toBe('messageAgent')
    expect(shortcutFor(press('.'))).toBe('nodeMenu')
    expect(shortcutFor(press('a'))).toBe('toggleAutoApprove')
    expect(shortcutFor(press('f'))).toBe('fitView')
    expect(shortcutFor(press('e'))).toBe('exportJsonl')
    expect(shortcutFor(press(','))).toBe('settings')
    expect(shortcutFor(press('?', { shiftKey: true }))).toBe('help')
    expect(shortcutFor(press('x'))).toBeNull()
    expect(shortcutFor(press('Enter'))).toBeNull()
  })

  it('takes Ctrl+N and Cmd+N for a new job, and leaves other modified keys alone', () => {
    expect(shortcutFor(press('n', { ctrlKey: true }))).toBe('newJob')
    expect(shortcutFor(press('N', { metaKey: true }))).toBe('newJob')
    expect(shortcutFor(press('p', { ctrlKey: true }))).toBeNull()
    expect(shortcutFor(press('e', { altKey: true }))).toBeNull()
    expect(shortcutFor(press('K', { shiftKey: true }))).toBeNull()
  })

  it('reads letters with Caps Lock on', () => {
    expect(shortcutFor(press('F'))).toBe('fitView')
  })

  it('does nothing while the user types, or for a held-down key', () => {
    expect(shortcutFor(press('n', { target: { tagName: 'INPUT', type: 'text' } }))).toBeNull()
    expect(shortcutFor(press('n', { ctrlKey: true, target: { tagName: 'TEXTAREA' } }))).toBeNull()
    expect(shortcutFor(press('p', { target: { tagName: 'DIV', isContentEditable: true } }))).toBeNull()
    expect(shortcutFor(press('p', { repeat: true }))).toBeNull()
    // A focused switch or button takes no text: shortcuts still work.
    expect(shortcutFor(press('p', { target: { tagName: 'INPUT', type: 'checkbox' } }))).toBe('togglePause')
    expect(shortcutFor(press('p', { target: { tagName: 'BUTTON' } }))).toBe('togglePause')
  })

  it('lists every action once in the help', () => {
    const actions = shortcuts.map((shortcut) => shortcut.action)
    expect(new Set(actions).size).toBe(actions.length)
    expect(actions).toHaveLength(11)
    expect(isTypingTarget(null)).toBe(false)
    expect(isTypingTarget({ tagName: 'select' })).toBe(true)
  })
})
