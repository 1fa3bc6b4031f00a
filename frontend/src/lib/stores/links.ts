// The links of the project shown, kept in step with the server.

import { writable } from 'svelte/store';
import * as api from '../api';
import type { Link, LinkCaptureStart, LinkEnd, LinkFilter, LinkUpdate } from '../types';

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

/** saveLink changes a link (suspend, filters) and keeps the answer. */
export async function saveLink(pid: string, id: string, body: LinkUpdate): Promise<Link> {
  const l = await api.updateLink(pid, id, body);
  upsertLink(l);
  return l;
}

/** startCapture starts capturing a link's frames and keeps the answer. */
export async function startCapture(pid: string, id: string, body: LinkCaptureStart): Promise<Link> {
  const l = await api.startCapture(pid, id, body);
  upsertLink(l);
  return l;
}

/** stopCapture stops a link's capture (the file stays) and keeps the answer. */
export async function stopCapture(pid: string, id: string): Promise<Link> {
  const l = await api.stopCapture(pid, id);
  upsertLink(l);
  return l;
}

/** linkFilters lists the filters the server offers for a link. */
export const linkFilters = (pid: string, id: string): Promise<LinkFilter[]> => api.listLinkFilters(pid, id);

/** captureUrl is where a browser reads a link's running capture as a pcap
 * stream; null in the window. */
export const captureUrl = (pid: string, id: string): string | null => api.pcapUrl(pid, id);

/** openCapture opens a link's running capture in Wireshark (the window),
 * or answers the capture file to open instead. */
export const openCapture = (pid: string, id: string): Promise<api.CaptureResult> => api.openCapture(pid, id);
