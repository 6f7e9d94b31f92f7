import type { Node } from '@xyflow/react'

// The graph's two kinds of node, as React Flow holds them: below both the views that draw them
// (AgentNodeView, FanOutNode) and flow-elements.ts, which builds them.

/** An agent's box; everything it shows is read from the store by `agentId`. */
export type AgentFlowNode = Node<{ agentId: string }, 'agent'>

/** The group standing for a parent's many children past the fan-out threshold. */
export type FanOutFlowNode = Node<{ parentId: string }, 'fanOut'>

/** A node of the graph: an agent, or the group standing for a parent's many children. */
export type GraphFlowNode = AgentFlowNode | FanOutFlowNode
