import { rootKey, type TreeState } from '../store/tree-state'
import { fanOutId, isGrouped } from './fan-out'
import type { LayoutInput } from './layout-request'

/** The drawn shape of `tree`: children of a collapsed node are left out; a grouped fan-out is one group node. */
export function layoutInputFor(tree: TreeState, collapsed: Record<string, true>, expandedFanOuts: Record<string, true>): LayoutInput {
  const roots = tree.children[rootKey] ?? []
  const children = new Map<string, string[]>()
  const rootDepths = new Map<string, number>()
  let count = 0
  const visit = (id: string): void => {
    count += 1
    const kids = collapsed[id] ? [] : (tree.children[id] ?? [])
    if (kids.length === 0) return
    if (isGrouped(kids.length, expandedFanOuts[id] === true)) {
      children.set(id, [fanOutId(id)])
      count += 1
      return
    }
    children.set(id, kids)
    for (const kid of kids) visit(kid)
  }
  for (const root of roots) {
    rootDepths.set(root, tree.agents[root]?.depth ?? 0)
    visit(root)
  }
  return { roots, children, rootDepths, count }
}
