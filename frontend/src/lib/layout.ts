// The topology as the canvas draws it: server nodes and links turned into
// canvas nodes and edges, and where new or moved nodes go.

import type { NodeHandle } from '@xyflow/svelte';
import { portName } from './ports';
import type { Picture } from './drawing';
import type { Drawing, Link, Node } from './types';

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
  handles?: NodeHandle[];
  [k: string]: unknown;
}

// A canvas node's size and where its handles are, as TopologyNode's CSS
// lays them out (keep them in step). Given to Svelte Flow with every node,
// they let it draw links, fit the view and tell which nodes are in view
// before it has drawn and measured them: only the nodes in view are put in
// the DOM (onlyRenderVisibleElements); a node drawn is measured anyway.
export const NODE_SIZE = { width: 88, height: 72 } as const;
/** Links are drawn centre to centre through this one (first: the default handle). */
const CENTER_HANDLE = { id: 'c', type: 'source', position: 'top' as NodeHandle['position'], x: 43.5, y: 25.5, width: 1, height: 1 } as const;
export const NODE_HANDLES: NodeHandle[] = [
  CENTER_HANDLE,
  { id: 'out', type: 'source', position: 'right' as NodeHandle['position'], x: 76, y: 20, width: 12, height: 12 },
];

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

// Stacking, as GNS3's scene does it: nodes and drawings by their z, and a
// link half a step below the lower of its two nodes (gns3-gui 2.2.59,
// gns3/items/link_item.py, LinkItem.adjust) — so above a shape at z=0 and
// below its nodes. CSS z-index takes integers only: every z is doubled
// and a link sits one below.

/** stackZ is the CSS z-index of a node or drawing of GNS3 z. */
export const stackZ = (z: number): number => 2 * Math.round(z);

/** linkZ is the CSS z-index of a link between nodes of z za and zb. */
export const linkZ = (za: number, zb: number): number => Math.min(stackZ(za), stackZ(zb)) - 1;

/** LINK_LAYER_Z is where the far-out link layer (one path for all links)
 * sits: above drawings at z=0, below nodes at GNS3's default z=1. */
export const LINK_LAYER_Z = linkZ(1, 1);

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
    return {
      ...(before ?? {}), id: n.node_id, type: 'topology', position, data: { node: n }, selected: sel, zIndex: stackZ(n.z),
      measured: before?.measured ?? { ...NODE_SIZE }, handles: NODE_HANDLES,
    };
  });
}

const samePos = (a: XY, b: XY) => a.x === b.x && a.y === b.y;

/** What a drawing on the canvas carries: the drawing and its picture. */
export interface DrawingData extends Record<string, unknown> { drawing: Drawing; picture: Picture }

export interface DrawingFlowNode {
  id: string;
  type: 'drawing';
  position: XY;
  data: DrawingData;
  selected?: boolean;
  dragging?: boolean;
  draggable?: boolean;
  zIndex?: number;
  width?: number;
  height?: number;
  measured?: { width?: number; height?: number };
  [k: string]: unknown;
}

/** Anything on the canvas: a node or a drawing. */
export type CanvasNode = FlowNode | DrawingFlowNode;

export const isTopology = (n: CanvasNode): n is FlowNode => n.type === 'topology';
export const isDrawing = (n: CanvasNode): n is DrawingFlowNode => n.type === 'drawing';

/** A drawing's box is at least this big, so that a line can be grabbed. */
const MIN_DRAWING = 8;

/** toDrawingNodes builds the canvas drawings, stacked by their z among the
 * nodes (whose zIndex is their z). A locked drawing cannot be dragged. A
 * drawing that has not changed is the same object as in prev (keeping a
 * resize or drag in progress). */
export function toDrawingNodes(
  list: readonly Drawing[],
  prev: readonly CanvasNode[],
  selected: ReadonlySet<string>,
  parse: (svg: string) => Picture,
): DrawingFlowNode[] {
  const old = new Map<string, DrawingFlowNode>();
  for (const f of prev) if (isDrawing(f)) old.set(f.id, f);
  return list.map((d) => {
    const before = old.get(d.drawing_id);
    const sel = selected.has(d.drawing_id);
    if (before && before.data.drawing === d && before.selected === sel) return before;
    const picture = before && before.data.drawing.svg === d.svg ? before.data.picture : parse(d.svg);
    const width = Math.max(MIN_DRAWING, picture.width);
    const height = Math.max(MIN_DRAWING, picture.height);
    const position = before?.dragging ? before.position : { x: d.x, y: d.y };
    return {
      id: d.drawing_id, type: 'drawing', position, data: { drawing: d, picture }, selected: sel, zIndex: stackZ(d.z),
      draggable: !d.locked, width, height, measured: { width, height },
    };
  });
}

/** toFlowEdges builds the canvas edges of links whose two nodes exist.
 * An edge that has not changed is the same object as in prev, so that the
 * canvas redraws only the links that changed (a node event rebuilds the
 * list). */
export function toFlowEdges(
  links: readonly Link[],
  nodes: ReadonlyMap<string, Node>,
  selectedLink: string | null,
  prev: readonly FlowEdge[] = [],
): FlowEdge[] {
  const old = new Map(prev.map((e) => [e.id, e]));
  const out: FlowEdge[] = [];
  for (const l of links) {
    const [a, b] = l.nodes;
    if (!a || !b || !nodes.has(a.node_id) || !nodes.has(b.node_id)) continue;
    const selected = l.link_id === selectedLink;
    const sourceLabel = portName(nodes.get(a.node_id), a.adapter_number, a.port_number);
    const targetLabel = portName(nodes.get(b.node_id), b.adapter_number, b.port_number);
    const before = old.get(l.link_id);
    const zIndex = linkZ(nodes.get(a.node_id)?.z ?? 1, nodes.get(b.node_id)?.z ?? 1);
    if (
      before && before.data.link === l && before.selected === selected && before.zIndex === zIndex &&
      before.data.sourceLabel === sourceLabel && before.data.targetLabel === targetLabel
    ) {
      out.push(before);
      continue;
    }
    out.push({
      id: l.link_id,
      type: 'link',
      source: a.node_id,
      target: b.node_id,
      selected,
      zIndex,
      data: { link: l, sourceLabel, targetLabel },
    });
  }
  return out;
}

/** A link as the link layer draws it: a line between two node centres. */
export interface LinkSegment { id: string; a: XY; b: XY }

/** Where links meet a node: the centre of its symbol (the "c" handle). */
const ANCHOR: XY = { x: CENTER_HANDLE.x + CENTER_HANDLE.width / 2, y: CENTER_HANDLE.y };

/** linkSegments places the links whose two nodes are on the canvas. */
export function linkSegments(links: readonly Link[], at: ReadonlyMap<string, XY>): LinkSegment[] {
  const out: LinkSegment[] = [];
  for (const l of links) {
    const pa = l.nodes[0] && at.get(l.nodes[0].node_id);
    const pb = l.nodes[1] && at.get(l.nodes[1].node_id);
    if (!pa || !pb) continue;
    out.push({ id: l.link_id, a: { x: pa.x + ANCHOR.x, y: pa.y + ANCHOR.y }, b: { x: pb.x + ANCHOR.x, y: pb.y + ANCHOR.y } });
  }
  return out;
}

/** segmentsPath draws segments as one SVG path. */
export function segmentsPath(segs: readonly LinkSegment[]): string {
  let d = '';
  for (const s of segs) d += `M${Math.round(s.a.x)} ${Math.round(s.a.y)}L${Math.round(s.b.x)} ${Math.round(s.b.y)}`;
  return d;
}

/** nearestSegment answers the segment nearest p, if within max. */
export function nearestSegment(segs: readonly LinkSegment[], p: XY, max: number): LinkSegment | null {
  let best: LinkSegment | null = null;
  let bestD = max;
  for (const s of segs) {
    const dx = s.b.x - s.a.x;
    const dy = s.b.y - s.a.y;
    const len2 = dx * dx + dy * dy;
    const t = len2 === 0 ? 0 : Math.max(0, Math.min(1, ((p.x - s.a.x) * dx + (p.y - s.a.y) * dy) / len2));
    const d = Math.hypot(p.x - (s.a.x + t * dx), p.y - (s.a.y + t * dy));
    if (d <= bestD) [best, bestD] = [s, d];
  }
  return best;
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

export interface Rect { x: number; y: number; width: number; height: number }

/** minimapPaths draws nodes as one SVG path per colour (a rectangle each):
 * three elements for a thousand nodes, rebuilt in well under a millisecond. */
export function minimapPaths<K extends string>(nodes: Iterable<Rect & { key: K }>): Map<K, string> {
  const parts = new Map<K, string[]>();
  for (const n of nodes) {
    let p = parts.get(n.key);
    if (!p) parts.set(n.key, (p = []));
    p.push(`M${Math.round(n.x)} ${Math.round(n.y)}h${Math.round(n.width)}v${Math.round(n.height)}h${-Math.round(n.width)}z`);
  }
  return new Map([...parts].map(([k, p]) => [k, p.join('')]));
}

/** minimapView frames what a minimap of width×height px shows: the nodes
 * and the part of the canvas in view, with 5 px around; as Svelte Flow's
 * MiniMap. scale is how many canvas units one minimap pixel is. */
export function minimapView(nodes: Rect | null, view: Rect, width: number, height: number): Rect & { scale: number } {
  const b = nodes ? unionRect(nodes, view) : view;
  const scale = Math.max(b.width / width, b.height / height) || 1;
  const offset = 5 * scale;
  return {
    x: b.x - (scale * width - b.width) / 2 - offset,
    y: b.y - (scale * height - b.height) / 2 - offset,
    width: scale * width + 2 * offset,
    height: scale * height + 2 * offset,
    scale,
  };
}

function unionRect(a: Rect, b: Rect): Rect {
  const x = Math.min(a.x, b.x);
  const y = Math.min(a.y, b.y);
  return { x, y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
}
