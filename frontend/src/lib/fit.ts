// Fitting the view to a whole lab: the box that holds every node (with its
// name), drawing and so every link (a link runs between two node centres),
// and the zoom and offset that show that box in the canvas. No zoom floor:
// a lab too wide for the smallest zoom a user may pick is still fitted, and
// the canvas lets the user zoom out as far as the fit went.

import { NODE_SIZE, type Rect, type XY } from './layout';

/** How far a node's name may reach left and right of its 88 px box (the
 * name is centred and at most 120 px wide, TopologyNode's CSS). */
const NAME_OVERHANG = (120 - NODE_SIZE.width) / 2;

/** A drawing as it sits on the canvas: its box and its rotation in degrees
 * about its top left corner (as GNS3 rotates it). */
export interface PlacedDrawing extends Rect { rotation?: number }

/** nodeBox is the box a node at p covers, its name included. */
export function nodeBox(p: XY): Rect {
  return { x: p.x - NAME_OVERHANG, y: p.y, width: NODE_SIZE.width + 2 * NAME_OVERHANG, height: NODE_SIZE.height };
}

/** drawingBox is the box a drawing covers, once rotated. */
export function drawingBox(d: PlacedDrawing): Rect {
  const r = ((d.rotation ?? 0) * Math.PI) / 180;
  if (r === 0) return { x: d.x, y: d.y, width: d.width, height: d.height };
  const cos = Math.cos(r);
  const sin = Math.sin(r);
  const corners = [[0, 0], [d.width, 0], [0, d.height], [d.width, d.height]].map(([u, v]) => ({ x: d.x + u * cos - v * sin, y: d.y + u * sin + v * cos }));
  const xs = corners.map((c) => c.x);
  const ys = corners.map((c) => c.y);
  const x = Math.min(...xs);
  const y = Math.min(...ys);
  return { x, y, width: Math.max(...xs) - x, height: Math.max(...ys) - y };
}

/** contentBox is the smallest box holding every node (at its position) and
 * drawing; null for an empty lab. */
export function contentBox(nodes: readonly XY[], drawings: readonly PlacedDrawing[]): Rect | null {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const add = (b: Rect) => {
    minX = Math.min(minX, b.x); minY = Math.min(minY, b.y);
    maxX = Math.max(maxX, b.x + b.width); maxY = Math.max(maxY, b.y + b.height);
  };
  for (const p of nodes) add(nodeBox(p));
  for (const d of drawings) add(drawingBox(d));
  if (minX === Infinity) return null;
  return { x: minX, y: minY, width: maxX - minX, height: maxY - minY };
}

/** A view of the canvas: flow point (0, 0) at screen (x, y), at zoom. */
export interface View { x: number; y: number; zoom: number }

/** fitView shows box whole and centred in a width×height canvas, with pad
 * screen pixels around it, never nearer than maxZoom. */
export function fitView(box: Rect, width: number, height: number, pad: number, maxZoom: number): View {
  const w = Math.max(1, width - 2 * pad);
  const h = Math.max(1, height - 2 * pad);
  const zoom = Math.min(maxZoom, w / Math.max(1, box.width), h / Math.max(1, box.height));
  return { x: (width - box.width * zoom) / 2 - box.x * zoom, y: (height - box.height * zoom) / 2 - box.y * zoom, zoom };
}

/** inView says whether box lies whole inside a width×height canvas shown
 * at view. */
export function inView(box: Rect, view: View, width: number, height: number): boolean {
  const x0 = box.x * view.zoom + view.x;
  const y0 = box.y * view.zoom + view.y;
  const eps = 0.5;
  return x0 >= -eps && y0 >= -eps && x0 + box.width * view.zoom <= width + eps && y0 + box.height * view.zoom <= height + eps;
}

/** keepInView answers the view that keeps a lab in sight when its canvas
 * changes size (the console dock opens or grows under it): null when
 * nothing needs to move — the lab was not whole in view before (the user
 * had zoomed in on a part), or still is. Otherwise the smallest pan that
 * brings the box whole into view, with pad around it where there is room;
 * when it no longer fits at this zoom, a fit to the new size (never
 * nearer than now or maxZoom). */
export function keepInView(box: Rect, view: View, before: { width: number; height: number }, after: { width: number; height: number }, pad: number, maxZoom: number): View | null {
  if (!inView(box, view, before.width, before.height) || inView(box, view, after.width, after.height)) return null;
  const w = box.width * view.zoom;
  const h = box.height * view.zoom;
  if (w > after.width || h > after.height) return fitView(box, after.width, after.height, pad, Math.min(maxZoom, view.zoom));
  const shift = (start: number, size: number, room: number): number => {
    const p = Math.min(pad, (room - size) / 2); // as much pad as there is room for
    if (start < p) return p - start;
    if (start + size > room - p) return room - p - (start + size);
    return 0;
  };
  const x0 = box.x * view.zoom + view.x;
  const y0 = box.y * view.zoom + view.y;
  return { x: view.x + shift(x0, w, after.width), y: view.y + shift(y0, h, after.height), zoom: view.zoom };
}

/** The smallest zoom the canvas offers: 0.2, or less when fitting the lab
 * took less (with some room to zoom out further). */
export function minZoomFor(fitZoom: number): number {
  return Math.min(0.2, fitZoom * 0.8);
}

/** A node's name to place on the zoomed-out canvas. */
export interface NameSpot { id: string; x: number; y: number; name: string; rank: number }

/** Where a far-out name's box is, relative to its node's position, and
 * how big it is on the screen (TopologyNode's .far-name: 12 px bold,
 * scaled to stay that size; about 7.5 px a character). */
const NAME_TOP = 58;
const NAME_H = 15;
const charW = 7.5;

/** shownNames answers which names the zoomed-out canvas shows at zoom:
 * those that do not overlap a name shown before them, the nodes of higher
 * rank (more links: switches, routers) first. The others show when their
 * node is hovered or selected. A grid of cells makes it linear. */
export function shownNames(spots: readonly NameSpot[], zoom: number): Set<string> {
  const CELL = 64;
  const grid = new Map<string, { x0: number; x1: number; y0: number; y1: number }[]>();
  const out = new Set<string>();
  const order = [...spots].sort((a, b) => b.rank - a.rank || a.name.localeCompare(b.name));
  for (const s of order) {
    const w = s.name.length * charW + 8;
    const cx = (s.x + NODE_SIZE.width / 2) * zoom;
    const r = { x0: cx - w / 2, x1: cx + w / 2, y0: (s.y + NAME_TOP) * zoom, y1: (s.y + NAME_TOP) * zoom + NAME_H };
    const keys: string[] = [];
    for (let gx = Math.floor(r.x0 / CELL); gx <= Math.floor(r.x1 / CELL); gx++) {
      for (let gy = Math.floor(r.y0 / CELL); gy <= Math.floor(r.y1 / CELL); gy++) keys.push(`${gx},${gy}`);
    }
    const hit = keys.some((k) => grid.get(k)?.some((o) => r.x0 < o.x1 && o.x0 < r.x1 && r.y0 < o.y1 && o.y0 < r.y1));
    if (hit) continue;
    out.add(s.id);
    for (const k of keys) {
      const cell = grid.get(k);
      if (cell) cell.push(r);
      else grid.set(k, [r]);
    }
  }
  return out;
}
