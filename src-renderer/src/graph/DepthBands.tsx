import { useStore, ViewportPortal, type ReactFlowState } from '@xyflow/react'
import { memo } from 'react'
import { layoutOptions, zoomedOutBelow } from './flow-elements'
import type { TreeLayout } from './layout'

/** Bands reach far past the tree so they fill the pane at any pan and zoom. */
const reach = 100_000
const inset = (layoutOptions.levelHeight - layoutOptions.nodeHeight) / 2
/** A band drawn thinner than this, in screen pixels, has no room for its label (a big tree zoomed out). */
const minLabelBand = 24
/**
 * Zoomed out, a band's dashed top border is solid. Its dashes are laid out in flow units over the
 * band's visible width, so at the zoom that fits 10,000 agents the hundred bands held hundreds of
 * thousands of dashes, each too small to see; rastering them held back the frame after the tree
 * appeared by 250 to 450 ms.
 */
const dashedFrom = zoomedOutBelow

const selectX = (state: ReactFlowState) => state.transform[0]
const selectZoom = (state: ReactFlowState) => state.transform[2]

/**
 * Horizontal stripes behind the tree, one per depth, in flow coordinates. Each "depth N" label
 * stays pinned to the pane's left edge at a constant size, and behind the nodes.
 */
function DepthBandsView({ layout }: { layout: TreeLayout }) {
  const x = useStore(selectX)
  const zoom = useStore(selectZoom)
  if (layout.positions.size === 0) return null
  const left = layout.minX - reach
  const labelLeft = (-x + 12) / zoom - left
  return (
    <ViewportPortal>
      {layout.bands.map(({ depth, top, height }, index) => (
        <div
          // A wrapped generation repeats depths: bands are told apart by place.
          key={index}
          className={`depth-band ${index % 2 === 0 ? 'even' : 'odd'}`}
          data-testid="depth-band"
          style={{
            transform: `translate(${left}px, ${top - inset}px)`,
            width: layout.maxX - layout.minX + reach * 2,
            height,
            borderTopStyle: zoom < dashedFrom ? 'solid' : undefined,
          }}
        >
          {height * zoom >= minLabelBand && (
            <span className="depth-band__label" style={{ transform: `translate(${labelLeft}px, ${6 / zoom}px) scale(${1 / zoom})` }}>
              depth {depth}
            </span>
          )}
        </div>
      ))}
    </ViewportPortal>
  )
}

export const DepthBands = memo(DepthBandsView)
