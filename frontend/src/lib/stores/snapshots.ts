// The snapshots of the project shown, as the snapshots dialog lists them.
// A restore changes the topology on the server, and the canvas follows it
// through the project's events (node.*, link.*, drawing.*) like any other
// change.

import { writable } from 'svelte/store';
import * as api from '../api';
import type { Snapshot } from '../types';

export const snapshots = writable<Snapshot[]>([]);
/** 'loading' until the list of the project asked for arrives; its error otherwise. */
export const snapshotsState = writable<'loading' | 'ready' | { error: string }>('loading');

let listed: string | null = null;

/** The server's order: oldest first, then by name. */
const byTime = (a: Snapshot, b: Snapshot) => a.created_at - b.created_at || a.name.localeCompare(b.name);

/** loadSnapshots lists project pid's snapshots. */
export async function loadSnapshots(pid: string): Promise<void> {
  listed = pid;
  snapshotsState.set('loading');
  try {
    const list = await api.listSnapshots(pid);
    if (listed !== pid) return;
    snapshots.set([...list].sort(byTime));
    snapshotsState.set('ready');
  } catch (err) {
    if (listed === pid) snapshotsState.set({ error: api.toAppError(err).message });
  }
}

/** takeSnapshot keeps the project as it is now under name. */
export async function takeSnapshot(pid: string, name: string): Promise<Snapshot> {
  const s = await api.createSnapshot(pid, name);
  if (listed === pid) snapshots.update((list) => [...list.filter((x) => x.snapshot_id !== s.snapshot_id), s].sort(byTime));
  return s;
}

/** restoreSnapshot replaces the project's topology with the snapshot's. */
export async function restoreSnapshot(pid: string, sid: string): Promise<void> {
  await api.restoreSnapshot(pid, sid);
}

export async function deleteSnapshot(pid: string, sid: string): Promise<void> {
  await api.deleteSnapshot(pid, sid);
  if (listed === pid) snapshots.update((list) => list.filter((s) => s.snapshot_id !== sid));
}
