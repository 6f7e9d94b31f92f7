/**
 * A top-down tidy tree layout, pure and O(agents × depth): each subtree is laid out on its own,
 * siblings are pushed right just far enough that their contours (the left and right extent of
 * each level) keep a gap, and a parent is centred over its first and last child. A parent with
 * many children that are all leaves gets them in a grid of rows (at most `maxColumns` wide) instead
 * of one endless row; the depth band holding such a grid grows taller, so y still follows depth.
 * Hand-written rather than d3-hierarchy's tree(): that places equal boxes one row per depth, and
 * the wrapped grids with the bands they stretch are what makes a wide fan-out readable here.
 */
export interface LayoutOptions {
  nodeWidth: number
  nodeHeight: number
  /** Horizontal space between neighbouring nodes, and vertical space between grid rows. */
  gap: number
  /** Vertical distance between the tops of two depths when no grid makes a band taller. */
  levelHeight: number
  /** Leaf siblings beyond this count wrap into a grid (default 12). */
  wrapAfter?: number
  /** The widest a grid row may be, in nodes (default: no limit). */
  maxColumns?: number
}

export interface TreeLayoutInput {
  roots: readonly string[]
  /** Visible children in their order (return none for a collapsed node). */
  childrenOf: (id: string) => readonly string[]
  /** The depth of a root (0 for a job's root agent); descendants are one level lower each. */
  rootDepth?: (id: string) => number
}

export interface NodePosition {
  /** Top-left corner, as xyflow positions nodes. */
  x: number
  y: number
  depth: number
}

export interface DepthBand {
  depth: number
  /** Top of the band's first row of nodes; the band spans `height` from there. */
  top: number
  height: number
}

export interface TreeLayout {
  positions: Map<string, NodePosition>
  bands: DepthBand[]
  maxDepth: number
  minX: number
  maxX: number
}

type Extent = [left: number, right: number]

export function layoutTree(input: TreeLayoutInput, options: LayoutOptions): TreeLayout {
  const half = options.nodeWidth / 2
  const wrapAfter = options.wrapAfter ?? 12
  /** Centre of each node relative to its parent's centre (roots: relative to the forest). */
  const offset = new Map<string, number>()
  /** Grid row of a wrapped leaf (0 for everything else). */
  const row = new Map<string, number>()

  const placeSiblings = (ids: readonly string[]): { contour: Extent[]; centres: number[] } => {
    const centres: number[] = []
    let merged: Extent[] = []
    for (const id of ids) {
      const contour = place(id)
      let shift = 0
      if (centres.length > 0) {
        shift = -Infinity
        const shared = Math.min(merged.length, contour.length)
        for (let level = 0; level < shared; level++) {
          shift = Math.max(shift, merged[level]![1] + options.gap - contour[level]![0])
        }
      }
      centres.push(shift)
      merged = mergeContours(merged, contour, shift)
    }
    return { contour: merged, centres }
  }

  const placeGrid = (kids: readonly string[]): Extent[] => {
    const columns = Math.min(options.maxColumns ?? Infinity, Math.max(wrapAfter, Math.ceil(Math.sqrt(kids.length * 2))))
    const step = options.nodeWidth + options.gap
    const width = columns * step - options.gap
    kids.forEach((kid, index) => {
      offset.set(kid, -width / 2 + half + (index % columns) * step)
      row.set(kid, Math.floor(index / columns))
    })
    return [
      [-half, half],
      [-width / 2, width / 2],
    ]
  }

  const place = (id: string): Extent[] => {
    const kids = input.childrenOf(id)
    if (kids.length === 0) return [[-half, half]]
    if (kids.length > wrapAfter && kids.every((kid) => input.childrenOf(kid).length === 0)) return placeGrid(kids)
    const { contour, centres } = placeSiblings(kids)
    const middle = (centres[0]! + centres.at(-1)!) / 2
    kids.forEach((kid, index) => offset.set(kid, centres[index]! - middle))
    return [[-half, half], ...contour.map(([left, right]): Extent => [left - middle, right - middle])]
  }

  const forest = placeSiblings(input.roots)
  input.roots.forEach((root, index) => offset.set(root, forest.centres[index]!))

  // x and depth first; y once every depth knows how many grid rows it holds.
  const placed: { id: string; x: number; depth: number }[] = []
  const rowsAt: number[] = []
  const assign = (id: string, parentCentre: number, depth: number): void => {
    const centre = parentCentre + (offset.get(id) ?? 0)
    placed.push({ id, x: centre - half, depth })
    rowsAt[depth] = Math.max(rowsAt[depth] ?? 1, (row.get(id) ?? 0) + 1)
    for (const kid of input.childrenOf(id)) assign(kid, centre, depth + 1)
  }
  for (const root of input.roots) assign(root, 0, input.rootDepth?.(root) ?? 0)

  const rowStep = options.nodeHeight + options.gap
  const bands: DepthBand[] = []
  let top = 0
  for (let depth = 0; depth < rowsAt.length; depth++) {
    const height = options.levelHeight + ((rowsAt[depth] ?? 1) - 1) * rowStep
    bands.push({ depth, top, height })
    top += height
  }

  const positions = new Map<string, NodePosition>()
  let minX = Infinity
  let maxX = -Infinity
  for (const { id, x, depth } of placed) {
    positions.set(id, { x, y: bands[depth]!.top + (row.get(id) ?? 0) * rowStep, depth })
    minX = Math.min(minX, x)
    maxX = Math.max(maxX, x + options.nodeWidth)
  }
  if (positions.size === 0) return { positions, bands: [], maxDepth: 0, minX: 0, maxX: 0 }
  return { positions, bands, maxDepth: bands.length - 1, minX, maxX }
}

function mergeContours(left: Extent[], right: Extent[], shift: number): Extent[] {
  const merged: Extent[] = []
  const levels = Math.max(left.length, right.length)
  for (let level = 0; level < levels; level++) {
    const a = left[level]
    const b = right[level]
    if (a && b) merged.push([a[0], b[1] + shift])
    else if (a) merged.push(a)
    else merged.push([b![0] + shift, b![1] + shift])
  }
  return merged
}
