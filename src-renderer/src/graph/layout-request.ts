import { layoutTree, type LayoutOptions, type TreeLayout } from './layout'

/**
 * What a layout needs of the tree, as plain data that structured clone carries to the layout
 * worker and back: the roots, each drawn node's drawn children (collapsed subtrees and grouped
 * fan-outs already resolved) and each root's depth.
 */
export interface LayoutInput {
  roots: string[]
  children: Map<string, string[]>
  rootDepths: Map<string, number>
  /** Drawn nodes: agents and fan-out groups. */
  count: number
}

export interface LayoutRequest {
  /** Increasing per scheduler: a response answers the request of the same id. */
  id: number
  input: LayoutInput
  options: LayoutOptions
}

export interface LayoutResponse {
  id: number
  layout: TreeLayout
}

/** Answers one request; the layout worker runs this, and the renderer itself for a small tree. */
export function runLayoutRequest({ id, input, options }: LayoutRequest): LayoutResponse {
  const none: readonly string[] = []
  const layout = layoutTree(
    { roots: input.roots, childrenOf: (node) => input.children.get(node) ?? none, rootDepth: (root) => input.rootDepths.get(root) ?? 0 },
    options,
  )
  return { id, layout }
}
