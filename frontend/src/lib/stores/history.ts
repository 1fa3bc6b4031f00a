// The history of the project shown: what undo and redo would take now
// (from GET …/history when it opens, then from history.updated events),
// and the undo and redo the toolbar, the keyboard and the history panel
// ask for. Undos and redos are sent one after the other, so that a burst
// of Ctrl+Z takes back the entries in order and stops at the first refusal.

import { writable } from 'svelte/store';
import * as api from '../api';
import type { HistoryJump } from '../history';
import type { HistoryEntry, HistoryOrigin, HistoryState } from '../types';
import { inWindow } from './door';
import { failed, notify } from './notices';

export interface HistoryHeads {
  undo: HistoryEntry | null;
  redo: HistoryEntry | null;
}

const NONE: HistoryHeads = { undo: null, redo: null };

/** What undo and redo would take now, in the project shown. */
export const historyHeads = writable<HistoryHeads>(NONE);

/** The door this page's own changes come through. */
export const selfOrigin = (): HistoryOrigin => (inWindow() ? 'window' : 'browser');

let shown: string | null = null;

/** followHistory switches to project pid's history (null: none) and reads
 * its heads. */
export function followHistory(pid: string | null): void {
  shown = pid;
  historyHeads.set(NONE);
  if (pid !== null) void reloadHistory(pid);
}

/** reloadHistory reads the heads again (on opening, after a resync). */
export async function reloadHistory(pid: string): Promise<void> {
  try {
    const h = await api.history(pid);
    if (shown === pid) historyHeads.set({ undo: h.undo[0] ?? null, redo: h.redo[0] ?? null });
  } catch {
    // The toolbar keeps its buttons off; the next change's event sets them.
  }
}

/** historyLists reads project pid's whole history (the history panel):
 * what undo would take back, newest first, and what redo would make again. */
export async function historyLists(pid: string): Promise<{ undo: HistoryEntry[]; redo: HistoryEntry[] }> {
  const h = await api.history(pid);
  return { undo: h.undo, redo: h.redo };
}

/** applyHistoryEvent folds a history.updated event in. */
export function applyHistoryEvent(st: HistoryState): void {
  if (st.project_id === shown) historyHeads.set({ undo: st.undo, redo: st.redo });
}

let queue: Promise<unknown> = Promise.resolve();

/** step undoes or redoes up to n entries of pid, one after the other;
 * the first refusal (a 409: nothing left, or something in the way, which
 * its message names) is the notice, and stops the rest. Answers how many
 * were taken. */
export function step(pid: string, { verb, steps }: HistoryJump): Promise<number> {
  const run = async () => {
    let done = 0;
    let last: HistoryEntry | null = null;
    for (; done < steps; done++) {
      try {
        last = await (verb === 'undo' ? api.undo(pid) : api.redo(pid));
      } catch (err) {
        failed(`Could not ${verb}`, err);
        return done;
      }
    }
    if (last) notify('success', steps === 1 ? `${verb === 'undo' ? 'Undone' : 'Redone'}: ${last.description}` : `${verb === 'undo' ? 'Undid' : 'Redid'} ${done} changes`);
    return done;
  };
  const p = queue.then(run);
  queue = p.catch(() => undefined);
  return p;
}

export const undoLast = (pid: string) => step(pid, { verb: 'undo', steps: 1 });
export const redoLast = (pid: string) => step(pid, { verb: 'redo', steps: 1 });
