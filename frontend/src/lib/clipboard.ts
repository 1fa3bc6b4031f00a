// Copy and paste of a selection: what a copy holds and what a paste asks
// the server to make. A copy is the selected nodes as the server last
// described them, the links whose two ends are both among them, and the
// selected drawings; a paste makes new nodes of the same type and
// settings (the server gives each a free name from the original's and a
// free console port), the links between them on the same adapter and port
// numbers, and the drawings, all moved by an offset.

import type { Drawing, DrawingCreate, Link, LinkCreate, Node, NodeCreate, NodeUpdate } from './types';

/** What the clipboard holds: copies taken when the user copied, so a
 * paste does not depend on the originals (deleted since, or of another
 * project). */
export interface Clip {
  nodes: Node[];
  links: Link[];
  drawings: Drawing[];
}

/** How far each paste lands from the last (right and down, in px). */
export const PASTE_OFFSET = 40;

/** clipOf is the copy of a selection: the selected nodes, the links between
 * two of them, and the selected drawings; null when nothing is selected. */
export function clipOf(
  nodeIds: Iterable<string>, nodes: ReadonlyMap<string, Node>, links: readonly Link[],
  drawingIds: Iterable<string> = [], drawings: ReadonlyMap<string, Drawing> = new Map(),
): Clip | null {
  const ns = [...nodeIds].flatMap((id) => nodes.get(id) ?? []);
  const ds = [...drawingIds].flatMap((id) => drawings.get(id) ?? []);
  if (ns.length === 0 && ds.length === 0) return null;
  const ids = new Set(ns.map((n) => n.node_id));
  const ls = links.filter((l) => l.nodes.length === 2 && l.nodes.every((e) => ids.has(e.node_id)));
  return structuredClone({ nodes: ns, links: ls, drawings: ds });
}

/** describeClip is "PC1, Switch1 and 1 link", for notices. */
export function describeClip(c: Clip): string {
  const parts: string[] = [];
  const names = c.nodes.map((n) => n.name);
  if (names.length > 0) parts.push(names.length <= 2 ? names.join(', ') : `${names[0]} and ${names.length - 1} more nodes`);
  if (c.links.length > 0) parts.push(c.links.length === 1 ? '1 link' : `${c.links.length} links`);
  if (c.drawings.length > 0) parts.push(c.drawings.length === 1 ? '1 drawing' : `${c.drawings.length} drawings`);
  return parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

/** The fields of a node that are its own and not a copy's: identity,
 * place in the project, console port, what running it made, what the
 * server derives (ports, symbol size) and whether its compute is
 * connected now. (Its compute_id is copied: a copy runs where the original
 * does.) */
const NOT_COPIED = [
  'node_id', 'project_id', 'console', 'console_host', 'status', 'command_line', 'node_directory',
  'ports', 'width', 'height', 'template_id', 'label', 'locked', 'compute_connected',
] as const;

const labelFollows = (n: Node) => n.label.text === n.name;

/** nodeCopy is the body that creates a copy of n moved by (dx, dy): the
 * name asked is the original's, which the server makes free (PC1 → PC2);
 * the label is the original's unless it showed the name, which the
 * server then gives the copy (labelFix restores its place and style). */
export function nodeCopy(n: Node, dx: number, dy: number): NodeCreate {
  const body: Record<string, unknown> = { ...structuredClone(n) };
  for (const k of NOT_COPIED) delete body[k];
  if (!labelFollows(n)) body.label = structuredClone(n.label);
  body.x = n.x + dx;
  body.y = n.y + dy;
  return body as unknown as NodeCreate;
}

/** labelFix is the update that gives a copy the original's label place
 * and style, around its own name; null when the copy's label is so. */
export function labelFix(original: Node, copy: Node): NodeUpdate | null {
  if (!labelFollows(original)) return null;
  const want = { ...original.label, text: copy.name };
  return JSON.stringify(want) === JSON.stringify({ ...copy.label, text: copy.name }) ? null : { label: want };
}

/** linkCopy is the body that links the copies of l's ends on the same
 * adapter and port numbers (ids: original node id → copy's); null when
 * an end has no copy. */
export function linkCopy(l: Link, ids: ReadonlyMap<string, string>): LinkCreate | null {
  const ends = l.nodes.map((e) => ({ ...structuredClone(e), node_id: ids.get(e.node_id) ?? '' }));
  if (ends.length !== 2 || ends.some((e) => e.node_id === '')) return null;
  const body: LinkCreate = { nodes: ends };
  if (l.filters && Object.keys(l.filters).length > 0) body.filters = structuredClone(l.filters);
  if (l.suspend) body.suspend = true;
  if (l.link_style && Object.keys(l.link_style).length > 0) body.link_style = structuredClone(l.link_style);
  return body;
}

/** drawingCopy is the body that creates a copy of d moved by (dx, dy). */
export function drawingCopy(d: Drawing, dx: number, dy: number): DrawingCreate {
  return { svg: d.svg, x: d.x + dx, y: d.y + dy, z: d.z, rotation: d.rotation, locked: false };
}
