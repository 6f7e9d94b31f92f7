/** Whether a pointer event is over the inspector dock, for dropping a dragged node onto it. */
export function isOverDock(event: { clientX?: number; clientY?: number } | { touches?: unknown }): boolean {
  const point = pointOf(event)
  const dock = document.querySelector('[data-testid="inspector-dock"]')
  if (!point || !dock) return false
  const rect = dock.getBoundingClientRect()
  return point.x >= rect.left && point.x <= rect.right && point.y >= rect.top && point.y <= rect.bottom
}

function pointOf(event: object): { x: number; y: number } | null {
  const mouse = event as { clientX?: number; clientY?: number }
  if (typeof mouse.clientX === 'number' && typeof mouse.clientY === 'number') return { x: mouse.clientX, y: mouse.clientY }
  const touch = (event as { changedTouches?: ArrayLike<{ clientX: number; clientY: number }> }).changedTouches?.[0]
  return touch ? { x: touch.clientX, y: touch.clientY } : null
}
