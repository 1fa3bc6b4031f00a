// Short messages to the user: what happened, and for errors what to do,
// in plain words; the technical detail behind one (a program's own words,
// a status code) is kept apart and shown behind its Details button.
// A leaf among the stores: it imports none of them. The stores that hold
// lists register what to reload when a failure says a thing is gone
// (whenGone), so the notices need not know them.

import { writable } from 'svelte/store';
import { toAppError } from '../errors';

export type NoticeKind = 'info' | 'success' | 'error';
/** A button a notice offers: what to do about it (Start, for a stopped node's console). */
export interface NoticeAction { label: string; run: () => void }
export interface Notice { id: number; kind: NoticeKind; message: string; action?: NoticeAction; detail?: string }

export const notices = writable<Notice[]>([]);
let next = 1;
/** The notices whose detail the user opened: they stay until dismissed. */
const kept = new Set<number>();

/** notify shows message for ms; detail, when given, is the technical
 * detail behind it, one click away. A notice with a detail stays at
 * least 8 s, so that there is time to open it. */
export function notify(kind: NoticeKind, message: string, ms = kind === 'error' ? 8000 : 2500, action?: NoticeAction, detail?: string): number {
  const id = next++;
  notices.update((ns) => [...ns.slice(-2), { id, kind, message, ...(action ? { action } : {}), ...(detail ? { detail } : {}) }]);
  setTimeout(() => {
    if (!kept.has(id)) dismiss(id);
  }, detail ? Math.max(ms, 8000) : ms);
  return id;
}

/** keep stops notice id from going away by itself (its detail is open). */
export function keep(id: number): void {
  kept.add(id);
}

export function dismiss(id: number): void {
  kept.delete(id);
  notices.update((ns) => ns.filter((n) => n.id !== id));
}

const reloads: (() => void)[] = [];

/** whenGone registers reload, run (in the order registered) when a
 * failure says the thing is gone (deleted elsewhere); answers the
 * function that forgets it. */
export function whenGone(reload: () => void): () => void {
  reloads.push(reload);
  return () => {
    const i = reloads.indexOf(reload);
    if (i >= 0) reloads.splice(i, 1);
  };
}

/** failed shows an error as a notice: "<what>: <server message>". When
 * the thing is gone (deleted elsewhere), the lists are reloaded too
 * (whenGone: the projects, and the project shown). */
export function failed(what: string, err: unknown): void {
  const e = toAppError(err);
  notify('error', `${what}: ${e.message}`, undefined, undefined, e.detail ?? undefined);
  if (e.code === 'not_found') for (const reload of [...reloads]) reload();
}
