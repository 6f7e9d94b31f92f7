import { hierarchy, tree } from 'd3-hierarchy'

/**
 * A top-down tree layout, pure. The tidy tree itself is d3-hierarchy's `tree()` (Buchheim's
 * Reingold–Tilford): siblings as close as their subtrees' contours allow, a parent centred over
 * its first and last child. Two things are ours, because they are what keeps a big tree readable:
 * - Leaf grids: a parent with many children that are all leaves gets them in a grid of rows (at
 *   most `maxColumns` wide) instead of one endless row. The grid enters d3 as one wide node (the
 *   separation function knows each node's width); the depth band holding it grows taller, so y
 *   still follows depth.
 * - Wrapped generations: a subtree wider than `wrapWidth` lays its children's subtrees out in rows
 *   of blocks under it, the number of blocks a row chosen so that the whole comes near `aspect`.
 *   Without it a tree of 10,000 agents, 24 children a parent, is over a million pixels wide and
 *   no fit of the view shows it. Each row of blocks has its own depth bands.
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
  /** A subtree wider than this, in nodes, wraps its children into rows (default 40). */
  wrapWidth?: number
  /** Width to height that wrapped rows aim for (default 1.6, a landscape pane). */
  aspect?: number
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
  /** Top to bottom; a depth comes again in each row of a wrapped generation. */
  bands: DepthBand[]
  maxDepth: number
  minX: number
  maxX: number
}

/** A node placed in a section: centre x, band index within the section, grid row within the band. */
interface Item {
  id: string
  x: number
  band: number
  row: number
  depth: number
}

/** A laid-out part of the tree: its items, its bands (depth and grid rows), its left and right edge. */
interface Section {
  items: Item[]
  bands: { depth: number; rows: number }[]
  left: number
  right: number
}

/** What d3 lays out: an agent, or the grid of leaves under one (as a single wide node). */
interface Shape {
  id: string | null
  width: number
  grid: readonly string[] | null
  children: Shape[]
}

export function layoutTree(input: TreeLayoutInput, options: LayoutOptions): TreeLayout {
  const half = options.nodeWidth / 2
  const step = options.nodeWidth + options.gap
  const rowStep = options.nodeHeight + options.gap
  const wrapAfter = options.wrapAfter ?? 12
  const wrapWidth = (options.wrapWidth ?? 40) * step
  const aspect = options.aspect ?? 1.6
  const depthOfRoot = (id: string): number => input.rootDepth?.(id) ?? 0
  const isLeaf = (id: string): boolean => input.childrenOf(id).length === 0
  const bandHeight = (rows: number): number => options.levelHeight + (rows - 1) * rowStep
  const gridColumns = (count: number): number =>
    Math.min(options.maxColumns ?? Infinity, Math.max(wrapAfter, Math.ceil(Math.sqrt(count * 2))))

  const shapeOf = (id: string): Shape => {
    const kids = input.childrenOf(id)
    if (kids.length > wrapAfter && kids.every(isLeaf)) {
      const width = gridColumns(kids.length) * step - options.gap
      return { id, width: options.nodeWidth, grid: null, children: [{ id: null, width, grid: kids, children: [] }] }
    }
    return { id, width: options.nodeWidth, grid: null, children: kids.map(shapeOf) }
  }

  /** The d3 tidy tree of a forest (under a root of its own that is not drawn); `depth` is the roots' own, if known. */
  const tidySection = (ids: readonly string[], depth?: number): Section => {
    const forest = hierarchy<Shape>({ id: null, width: 0, grid: null, children: ids.map(shapeOf) }, (shape) => shape.children)
    const laidOut = tree<Shape>()
      .nodeSize([1, 1])
      .separation((a, b) => (a.data.width + b.data.width) / 2 + options.gap)(forest)
    const items: Item[] = []
    const bands: Section['bands'] = []
    let left = Infinity
    let right = -Infinity
    const add = (id: string, x: number, band: number, row: number, depth: number): void => {
      items.push({ id, x, band, row, depth })
      bands[band] = { depth: bands[band]?.depth ?? depth, rows: Math.max(bands[band]?.rows ?? 1, row + 1) }
      left = Math.min(left, x - half)
      right = Math.max(right, x + half)
    }
    for (const top of laidOut.children ?? []) {
      const base = depth ?? depthOfRoot(top.data.id!)
      top.each((node) => {
        const band = node.depth - 1
        const grid = node.data.grid
        if (!grid) {
          add(node.data.id!, node.x, band, 0, base + band)
          return
        }
        const columns = gridColumns(grid.length)
        grid.forEach((id, index) =>
          add(id, node.x - node.data.width / 2 + half + (index % columns) * step, band, Math.floor(index / columns), base + band),
        )
      })
    }
    return { items, bands, left, right }
  }

  const place = (ids: readonly string[], depth?: number): Section => {
    const tidy = tidySection(ids, depth)
    if (tidy.right - tidy.left <= wrapWidth) return tidy
    if (ids.length > 1) return wrapRows(ids.map((id) => place([id], depth)))
    const kids = input.childrenOf(ids[0]!)
    // A grid is as narrow as `maxColumns` makes it: nothing more to wrap.
    if (kids.every(isLeaf)) return tidy
    const head = tidy.items[0]!
    const root: Section = { items: [{ ...head, x: 0 }], bands: [{ depth: head.depth, rows: 1 }], left: -half, right: half }
    return stack([root, wrapRows(kids.map((kid) => place([kid], head.depth + 1)))])
  }

  /**
   * Blocks in rows, each row filled in order up to a width; of the widths that make 1, 2, … n
   * rows, the one whose rows come nearest the aspect. A wide block (a subtree with grids) and a
   * run of single leaves share rows by width, not by count. Measured from the blocks' widths and
   * bands alone; only the chosen rows are built.
   */
  const wrapRows = (blocks: Section[]): Section => {
    const widthOf = (block: Section): number => block.right - block.left
    const total = blocks.reduce((sum, block) => sum + widthOf(block) + options.gap, -options.gap)
    const widest = Math.max(...blocks.map(widthOf))
    const rowsWithin = (limit: number): Section[][] => {
      const rows: Section[][] = []
      let row: Section[] = []
      let width = -options.gap
      for (const block of blocks) {
        if (row.length > 0 && width + options.gap + widthOf(block) > limit) {
          rows.push(row)
          row = []
          width = -options.gap
        }
        row.push(block)
        width += options.gap + widthOf(block)
      }
      rows.push(row)
      return rows
    }
    let best: Section[][] = [blocks]
    let bestScore = Infinity
    for (let count = 1; count <= blocks.length; count++) {
      const rows = rowsWithin(Math.max(widest, total / count))
      let width = 0
      let height = 0
      for (const row of rows) {
        width = Math.max(
          width,
          row.reduce((sum, block) => sum + widthOf(block) + options.gap, -options.gap),
        )
        const bandRows: number[] = []
        for (const block of row) block.bands.forEach((band, index) => (bandRows[index] = Math.max(bandRows[index] ?? 1, band.rows)))
        height += bandRows.reduce((sum, rowCount) => sum + bandHeight(rowCount), 0)
      }
      const score = Math.abs(Math.log(width / height / aspect))
      if (score < bestScore) {
        best = rows
        bestScore = score
      }
    }
    return stack(best.map(beside))
  }

  /** Sections side by side, a gap apart; their bands line up by index, each as tall as its tallest. */
  const beside = (sections: Section[]): Section => {
    const items: Item[] = []
    const bands: Section['bands'] = []
    let cursor = 0
    for (const section of sections) {
      const shift = cursor - section.left
      for (const item of section.items) items.push({ ...item, x: item.x + shift })
      section.bands.forEach((band, index) => {
        bands[index] = { depth: bands[index]?.depth ?? band.depth, rows: Math.max(bands[index]?.rows ?? 1, band.rows) }
      })
      cursor = section.right + shift + options.gap
    }
    return { items, bands, left: 0, right: cursor - options.gap }
  }

  /** Sections one under another, each centred on x = 0. */
  const stack = (sections: Section[]): Section => {
    const items: Item[] = []
    const bands: Section['bands'] = []
    let width = 0
    for (const section of sections) {
      const shift = -(section.left + section.right) / 2
      for (const item of section.items) items.push({ ...item, x: item.x + shift, band: item.band + bands.length })
      bands.push(...section.bands)
      width = Math.max(width, section.right - section.left)
    }
    return { items, bands, left: -width / 2, right: width / 2 }
  }

  const positions = new Map<string, NodePosition>()
  if (input.roots.length === 0) return { positions, bands: [], maxDepth: 0, minX: 0, maxX: 0 }
  const laidOut = place(input.roots)
  const bands: DepthBand[] = []
  let top = 0
  for (const { depth, rows } of laidOut.bands) {
    bands.push({ depth, top, height: bandHeight(rows) })
    top += bandHeight(rows)
  }
  let maxDepth = 0
  for (const { id, x, band, row, depth } of laidOut.items) {
    positions.set(id, { x: x - half, y: bands[band]!.top + row * rowStep, depth })
    maxDepth = Math.max(maxDepth, depth)
  }
  return { positions, bands, maxDepth, minX: laidOut.left, maxX: laidOut.right }
}
