// The page's clipboard (in memory: it lasts as long as the tab, across the
// projects opened in it) and paste: the copies of a clip are made as one
// gesture, so one undo takes the whole paste back, and become the selection.

import { get, writable } from 'svelte/store';
import * as api from '../api';
import { clipOf, describeClip, drawingCopy, labelFix, linkCopy, nodeCopy, PASTE_OFFSET, type Clip } from '../clipboard';
import { gesture } from '../gesture';
import type { Drawing, Link, Node } from '../types';
import { drawings, upsertDrawing } from './drawings';
import { links, upsertLink } from './links';
import { nodes, upsertNode } from './nodes';
import { failed, notify } from './notices';
import { selectDrawings, selectNodes, selectedDrawings, selectedNodes } from './selection';

/** What Ctrl+C copied last, and how many times it has been pasted. */
export const clipboard = writable<{ clip: Clip; pastes: number } | null>(null);

/** selectionClip is the copy of the selection now, or null. */
function selectionClip(): Clip | null {
  return clipOf(get(selectedNodes), get(nodes), get(links), get(selectedDrawings), get(drawings));
}

/** copySelection puts the selection on the clipboard; false when nothing is selected. */
export function copySelection(): boolean {
  const clip = selectionClip();
  if (!clip) return false;
  clipboard.set({ clip, pastes: 0 });
  notify('info', `Copied ${describeClip(clip)}`);
  return true;
}

/** paste makes the clipboard's copies in project pid, each paste
 * PASTE_OFFSET further from the originals than the last. */
export async function paste(pid: string): Promise<void> {
  const cb = get(clipboard);
  if (!cb) return;
  const pastes = cb.pastes + 1;
  clipboard.set({ clip: cb.clip, pastes });
  await pasteClip(pid, cb.clip, PASTE_OFFSET * pastes, 'paste');
}

/** duplicateSelection copies and pastes the selection in one step (the
 * clipboard stays as it was). */
export async function duplicateSelection(pid: string): Promise<void> {
  const clip = selectionClip();
  if (clip) await pasteClip(pid, clip, PASTE_OFFSET, 'duplicate');
}

/** duplicateNodes duplicates nodes with the links between them. */
export async function duplicateNodes(pid: string, ids: readonly string[]): Promise<void> {
  const clip = clipOf(ids, get(nodes), get(links));
  if (clip) await pasteClip(pid, clip, PASTE_OFFSET, 'duplicate');
}

/** copyNode makes one copy of n moved by (offset, offset). An original
 * that is still a node of project pid is duplicated by the server, which
 * copies its files (a VM's disks) and gives the copy what must be its own
 * (a MAC address), as GNS3's duplicate does; one of another project, or
 * deleted since, is made anew from its settings (GNS3 keeps MACs across
 * projects too, unless a project duplicate resets them). */
function copyNode(pid: string, here: ReadonlyMap<string, Node>, n: Node, offset: number): Promise<Node> {
  if (n.project_id === pid && here.has(n.node_id)) {
    return api.duplicateNode(pid, n.node_id, { x: n.x + offset, y: n.y + offset, z: n.z });
  }
  return api.createNode(pid, nodeCopy(n, offset, offset));
}

/** Each request's outcome, in order. */
type Outcomes<T> = PromiseSettledResult<T>[];

const made = <T>(rs: Outcomes<T>): T[] => rs.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
const errorsOf = (...rs: Outcomes<unknown>[]): unknown[] => rs.flat().flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));

/** pasteClip makes clip's copies moved by (offset, offset): the nodes, then
 * their links and label places and the drawings, all in one gesture; the
 * copies become the selection. What failed is the notice; what was made stays. */
export async function pasteClip(pid: string, clip: Clip, offset: number, what: 'paste' | 'duplicate'): Promise<void> {
  const g = gesture();
  const here = get(nodes);
  const nodeResults = await g(() => Promise.allSettled(clip.nodes.map((n) => copyNode(pid, here, n, offset))));
  const ids = new Map<string, string>();
  const copies: Node[] = [];
  nodeResults.forEach((r, i) => {
    if (r.status !== 'fulfilled') return;
    ids.set(clip.nodes[i].node_id, r.value.node_id);
    copies.push(r.value);
    upsertNode(r.value);
  });
  const linkBodies = clip.links.flatMap((l) => linkCopy(l, ids) ?? []);
  const fixes = nodeResults.flatMap((r, i) => {
    const fix = r.status === 'fulfilled' ? labelFix(clip.nodes[i], r.value) : null;
    return fix && r.status === 'fulfilled' ? [{ id: r.value.node_id, fix }] : [];
  });
  const [linkResults, fixResults, drawingResults] = await g(() => Promise.all([
    Promise.allSettled(linkBodies.map((b) => api.createLink(pid, b))),
    Promise.allSettled(fixes.map((f) => api.updateNode(pid, f.id, f.fix))),
    Promise.allSettled(clip.drawings.map((d) => api.createDrawing(pid, drawingCopy(d, offset, offset)))),
  ]));
  made<Link>(linkResults).forEach(upsertLink);
  made<Node>(fixResults).forEach(upsertNode);
  const drawn = made<Drawing>(drawingResults);
  drawn.forEach(upsertDrawing);
  selectNodes(copies.map((c) => c.node_id));
  selectDrawings(drawn.map((d) => d.drawing_id));
  const errors = errorsOf(nodeResults, linkResults, fixResults, drawingResults);
  const verb = what === 'paste' ? 'paste' : 'duplicate';
  if (errors.length > 0) failed(`Could not ${verb} ${errors.length === 1 ? 'one of the copies' : `${errors.length} of the copies`}`, errors[0]);
  else notify('success', `${what === 'paste' ? 'Pasted' : 'Duplicated'} ${describeClip({ nodes: copies, links: made(linkResults), drawings: drawn })}`);
}
