// The topology as the canvas draws it: server nodes and links turned into
// canvas nodes and edges, and where new or moved nodes go.

import { portName } from './ports';
import type { Link, Node } from './types';

export interface XY { x: number; y: number }

/** What a canvas node carries. */
export interface TopoData extends Record<string, unknown> { node: Node }

export interface FlowNode {
  id: string;
  type: 'topology';
  position: XY;
  data: TopoData;
  selected?: boolean;
  dragging?: boolean;
  zIndex?: number;
  measured?: { width?: number; height?: number };
  [k: string]: unknown;
}

export interface LinkEdgeData extends Record<string, unknown> {
  link: Link;
  sourceLabel: string;
  targetLabel: string;
}

export interface FlowEdge {
  id: string;
  type: 'link';
  source: string;
  target: string;
  data: LinkEdgeData;
  selected?: boolean;
  [k: string]: unknown;
}

/** toFlowNodes builds the canvas nodes. A node being dragged or saved keeps
 * its local position (overrides); everything else comes from the server.
 * Canvas-only state of prev nodes (measured size) is kept. */
export function toFlowNodes(
  nodes: readonly Node[],
  prev: readonly FlowNode[],
  selected: ReadonlySet<string>,
  overrides: ReadonlyMap<string, XY> = new Map(),
): FlowNode[] {
  const old = new Map(prev.map((f) => [f.id, f]));
  return nodes.map((n) => {
    const before = old.get(n.node_id);
    // A node in the user's hand stays there, whatever the server says meanwhile.
    const position = overrides.get(n.node_id) ?? (before?.dragging ? before.position : { x: n.x, y: n.y });
    const sel = selected.has(n.node_id);
    if (before && before.data.node === n && before.selected === sel && samePos(before.position, position)) return before;
    return { ...(before ?? {}), id: n.node_id, type: 'topology', position, data: { node: n }, selected: sel, zIndex: n.z };
  });
}

const samePos = (a: XY, b: XY) => a.x === b.x && a.y === b.y;

/** toFlowEdges builds the canvas edges of links whose two nodes exist. */
export function toFlowEdges(links: readonly Link[], nodes: ReadonlyMap<string, Node>, selectedLink: string | null): FlowEdge[] {
  const out: FlowEdge[] = [];
  for (const l of links) {
    const [a, b] = l.nodes;
    if (!a || !b || !nodes.has(a.node_id) || !nodes.has(b.node_id)) continue;
    out.push({
      id: l.link_id,
      type: 'link',
      source: a.node_id,
      target: b.node_id,
      selected: l.link_id === selectedLink,
      data: {
        link: l,
        sourceLabel: portName(nodes.get(a.node_id), a.adapter_number, a.port_number),
        targetLabel: portName(nodes.get(b.node_id), b.adapter_number, b.port_number),
      },
    });
  }
  return out;
}

/** freeSpot finds a place near want that no node occupies (within `gap`),
 * trying steps along a diagonal, e.g. for duplicates. */
export function freeSpot(want: XY, taken: readonly XY[], gap = 40): XY {
  let p = { ...want };
  for (let i = 0; i < 50 && taken.some((t) => Math.abs(t.x - p.x) < gap && Math.abs(t.y - p.y) < gap); i++) {
    p = { x: p.x + gap, y: p.y + gap };
  }
  return p;
}

/** nudged moves a position by (dx, dy), staying on whole pixels. */
export function nudged(p: XY, dx: number, dy: number): XY {
  return { x: Math.round(p.x + dx), y: Math.round(p.y + dy) };
}

/** bounds of a set of positions (for an empty-state hint or fit). */
export function bounds(ps: readonly XY[]): { minX: number; minY: number; maxX: number; maxY: number } | null {
  if (ps.length === 0) return null;
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (const p of ps) {
    minX = Math.min(minX, p.x); minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x); maxY = Math.max(maxY, p.y);
  }
  return { minX, minY, maxX, maxY };
}

/** endLabelPoints places a link's two port labels on the line, `offset` px
 * in from each end (outside the node symbols), and `below` px more where
 * the line leaves a node downwards, past its name; short links share the middle. */
export function endLabelPoints(s: XY, t: XY, offset = 44, below = 0): { source: XY; target: XY } {
  const dx = t.x - s.x;
  const dy = t.y - s.y;
  const len = Math.hypot(dx, dy);
  if (len === 0) return { source: { ...s }, target: { ...t } };
  const ux = dx / len;
  const uy = dy / len;
  const ds = Math.min(offset + below * Math.max(0, uy), len / 3);
  const dt = Math.min(offset + below * Math.max(0, -uy), len / 3);
  return {
    source: { x: s.x + ux * ds, y: s.y + uy * ds },
    target: { x: t.x - ux * dt, y: t.y - uy * dt },
  };
}
