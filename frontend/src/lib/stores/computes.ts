// The computes (local first), kept live by the compute.* events of the
// controller stream, and the compute the palette puts new nodes on.

import { derived, writable } from 'svelte/store';
import * as api from '../api';
import { LOCAL, pickedCompute, sortComputes } from '../computes';
import type { Compute, ComputeCreate, ComputeUpdate, LiveEvent } from '../types';

export const computes = writable<Compute[]>([]);
/** The computes by id, for the nodes' and links' look. */
export const computeMap = derived(computes, (list) => new Map(list.map((c) => [c.compute_id, c])));
/** 'loading' until the first list arrives; its error otherwise. */
export const computesState = writable<'loading' | 'ready' | { error: string }>('loading');

/** The compute picked for new nodes; local unless the user picks another
 * (and local again once that one is removed). */
const picked = writable<string>(LOCAL);
export const placeCompute = derived([computes, picked], ([list, id]) => pickedCompute(list, id));
export const pickCompute = (id: string) => picked.set(id);

function upsert(c: Compute): void {
  computes.update((list) => sortComputes([...list.filter((x) => x.compute_id !== c.compute_id), c]));
}

function drop(id: string): void {
  computes.update((list) => list.filter((c) => c.compute_id !== id));
}

export async function loadComputes(): Promise<void> {
  try {
    computes.set(sortComputes(await api.listComputes()));
    computesState.set('ready');
  } catch (err) {
    computesState.set({ error: api.toAppError(err).message });
  }
}

/** settle folds a write's answer into the list. The compute's events may
 * have come before the answer and are newer about its connection (a new
 * compute connects at once): the list's connection state is kept, the
 * answer's settings taken. */
function settle(c: Compute): void {
  computes.update((list) => {
    const had = list.find((x) => x.compute_id === c.compute_id);
    const next = had ? { ...c, ...liveState(had) } : c;
    return sortComputes([...list.filter((x) => x.compute_id !== c.compute_id), next]);
  });
}

const liveState = ({ connected, cpu_usage_percent, memory_usage_percent, last_error, capabilities }: Compute) =>
  ({ connected, cpu_usage_percent, memory_usage_percent, last_error, capabilities });

export async function addCompute(body: ComputeCreate): Promise<Compute> {
  const c = await api.createCompute(body);
  settle(c);
  return c;
}

export async function editCompute(id: string, body: ComputeUpdate): Promise<Compute> {
  const c = await api.updateCompute(id, body);
  settle(c);
  return c;
}

export async function removeCompute(id: string): Promise<void> {
  await api.deleteCompute(id);
  drop(id);
}

/** applyComputeEvent folds a controller event into the list (the other
 * events of that stream are the projects'). */
export function applyComputeEvent(e: LiveEvent): void {
  switch (e.action) {
    case 'compute.created':
    case 'compute.updated':
      upsert(e.event);
      return;
    case 'compute.deleted':
      drop(e.event.compute_id);
      return;
    case 'resync':
      void loadComputes();
      return;
    default:
      return;
  }
}
