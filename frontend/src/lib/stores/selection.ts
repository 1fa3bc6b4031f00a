// What is selected on the canvas: nodes and drawings, or one link.

import { writable } from 'svelte/store';

export const selectedNodes = writable<ReadonlySet<string>>(new Set());
export const selectedDrawings = writable<ReadonlySet<string>>(new Set());
export const selectedLink = writable<string | null>(null);

export function selectNodes(ids: Iterable<string>): void {
  const next = new Set(ids);
  selectedNodes.update((cur) => (sameSet(cur, next) ? cur : next));
  if (next.size > 0) selectedLink.set(null);
}

/** selectDrawings selects drawings, beside the nodes selected. */
export function selectDrawings(ids: Iterable<string>): void {
  const next = new Set(ids);
  selectedDrawings.update((cur) => (sameSet(cur, next) ? cur : next));
  if (next.size > 0) selectedLink.set(null);
}

export function selectLink(id: string | null): void {
  selectedLink.set(id);
  if (id !== null) {
    selectedNodes.set(new Set());
    selectedDrawings.set(new Set());
  }
}

export function clearSelection(): void {
  selectNodes([]);
  selectDrawings([]);
  selectedLink.set(null);
}

export function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}
