// The nodes of the project shown, kept in step with the server.

import { derived, writable } from 'svelte/store';
import * as api from '../api';
import type { Node, NodeAction, NodeUpdate, TemplateNodeCreate } from '../types';
import type { XY } from '../layout';
import { removeLinksOf } from './links';

export const nodes = writable<ReadonlyMap<string, Node>>(new Map());
export const nodeList = derived(nodes, (m) => [...m.values()]);

export function setNodes(list: readonly Node[]): void {
  nodes.set(new Map(list.map((n) => [n.node_id, n])));
}

export function upsertNode(n: Node): void {
  nodes.update((m) => new Map(m).set(n.node_id, n));
}

export function removeNode(id: string): void {
  nodes.update((m) => {
    if (!m.has(id)) return m;
    const next = new Map(m);
    next.delete(id);
    return next;
  });
  removeLinksOf(id);
}

/** addNode makes a node from a template at a place, on a compute (the
 * template's when none is given). */
export async function addNode(pid: string, templateId: string, at: XY, computeId?: string): Promise<Node> {
  const body: TemplateNodeCreate = { x: Math.round(at.x), y: Math.round(at.y) };
  if (computeId !== undefined) body.compute_id = computeId;
  const n = await api.createNodeFromTemplate(pid, templateId, body);
  upsertNode(n);
  return n;
}

/** saveNode sends one PUT; the node changes here only once the server agreed. */
export async function saveNode(pid: string, nid: string, body: NodeUpdate): Promise<Node> {
  const n = await api.updateNode(pid, nid, body);
  upsertNode(n);
  return n;
}

/** Runs fn for each id; answers the errors (the others went through). */
async function each(ids: Iterable<string>, fn: (id: string) => Promise<void>): Promise<unknown[]> {
  const results = await Promise.allSettled([...ids].map(fn));
  return results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
}

export function deleteNodes(pid: string, ids: Iterable<string>): Promise<unknown[]> {
  return each(ids, async (id) => {
    await api.deleteNode(pid, id);
    removeNode(id);
  });
}

export function actOnNodes(pid: string, ids: Iterable<string>, action: NodeAction): Promise<unknown[]> {
  return each(ids, async (id) => upsertNode(await api.nodeAction(pid, id, action)));
}

/** moveNodes saves new positions (one PUT each). */
export function moveNodes(pid: string, moves: ReadonlyMap<string, XY>): Promise<unknown[]> {
  return each(moves.keys(), async (id) => {
    const p = moves.get(id)!;
    upsertNode(await api.updateNode(pid, id, { x: Math.round(p.x), y: Math.round(p.y) }));
  });
}

/** missingImages lists the images node nid names that its start would not
 * find (the server looks, as a start does), each with what to do. */
export async function missingImages(pid: string, nid: string): Promise<{ property: string; message?: string }[]> {
  return (await api.listNodeImages(pid, nid)).filter((i) => !i.found);
}
