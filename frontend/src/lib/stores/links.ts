// The links of the project shown, kept in step with the server.

import { writable } from 'svelte/store';
import * as api from '../api';
import type { Link, LinkEnd } from '../types';

export const links = writable<readonly Link[]>([]);

export function setLinks(list: readonly Link[]): void {
  links.set([...list]);
}

export function upsertLink(l: Link): void {
  links.update((ls) => {
    const i = ls.findIndex((x) => x.link_id === l.link_id);
    return i < 0 ? [...ls, l] : ls.map((x, k) => (k === i ? l : x));
  });
}

export function removeLink(id: string): void {
  links.update((ls) => (ls.some((l) => l.link_id === id) ? ls.filter((l) => l.link_id !== id) : ls));
}

/** removeLinksOf drops the links of a deleted node (the server deleted them too). */
export function removeLinksOf(nodeId: string): void {
  links.update((ls) => (ls.some((l) => l.nodes.some((e) => e.node_id === nodeId)) ? ls.filter((l) => !l.nodes.some((e) => e.node_id === nodeId)) : ls));
}

export async function addLink(pid: string, a: LinkEnd, b: LinkEnd): Promise<Link> {
  const l = await api.createLink(pid, { nodes: [a, b] });
  upsertLink(l);
  return l;
}

export async function deleteLink(pid: string, id: string): Promise<void> {
  await api.deleteLink(pid, id);
  removeLink(id);
}
