// Short messages to the user: what happened, and for errors what to do.

import { writable } from 'svelte/store';
import { toAppError } from '../api';
import { loadProjects } from './projects';
import { retry } from './topology';

export type NoticeKind = 'info' | 'success' | 'error';
export interface Notice { id: number; kind: NoticeKind; message: string }

export const notices = writable<Notice[]>([]);
let next = 1;

export function notify(kind: NoticeKind, message: string, ms = kind === 'error' ? 8000 : 2500): number {
  const id = next++;
  notices.update((ns) => [...ns.slice(-2), { id, kind, message }]);
  setTimeout(() => dismiss(id), ms);
  return id;
}

export function dismiss(id: number): void {
  notices.update((ns) => ns.filter((n) => n.id !== id));
}

/** failed shows an error as a notice: "<what>: <server message>". When
 * the thing is gone (deleted elsewhere), the lists are reloaded too. */
export function failed(what: string, err: unknown): void {
  const e = toAppError(err);
  notify('error', `${what}: ${e.message}`);
  if (e.code === 'not_found') {
    void loadProjects();
    retry();
  }
}
