// How the page speaks of a project's history: the undo and redo labels,
// the door a change came through, when it was made, and how many steps
// lead back (or forward) to an entry of the history panel.

import type { HistoryEntry, HistoryOrigin } from './types';

/** How the UI names each door a change can come through. */
export const ORIGIN_WORDS: Record<HistoryOrigin, string> = { api: 'API', browser: 'browser', window: 'window' };

/** originNote is "(API)", "(window)", "(browser)" for a change that came
 * through another kind of door than this page's, "" for one of this
 * kind: the UI says so whenever an undo would take back what a script or
 * the other kind of client did. */
export function originNote(origin: HistoryOrigin, self: HistoryOrigin): string {
  return origin === self ? '' : `(${ORIGIN_WORDS[origin]})`;
}

/** actionLabel is "Undo: Renamed PC1 (API)", or "Nothing to undo". */
export function actionLabel(verb: 'Undo' | 'Redo', e: HistoryEntry | null, self: HistoryOrigin): string {
  if (!e) return `Nothing to ${verb.toLowerCase()}`;
  const note = originNote(e.origin, self);
  return `${verb}: ${e.description}${note ? ` ${note}` : ''}`;
}

/** relativeTime says when, as a person would: "just now", "5 min ago",
 * "3 h ago", then the date. */
export function relativeTime(iso: string, now: number): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return '';
  const s = Math.max(0, Math.round((now - t) / 1000));
  if (s < 10) return 'just now';
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  if (s < 86400) return `${Math.floor(s / 3600)} h ago`;
  return new Date(t).toLocaleDateString();
}

/** A move through the history: how many undos or redos. */
export type HistoryJump = { verb: 'undo' | 'redo'; steps: number };

/** jumpTo is what brings the project to the state right after entry id
 * (undo: newest first, as GET …/history answers; redo: next first), or
 * with id null to the state before every entry: undos down to it, redos
 * up to and including it; null when it is the state now or not listed. */
export function jumpTo(undo: readonly HistoryEntry[], redo: readonly HistoryEntry[], id: string | null): HistoryJump | null {
  if (id === null) return undo.length > 0 ? { verb: 'undo', steps: undo.length } : null;
  const u = undo.findIndex((e) => e.entry_id === id);
  if (u > 0) return { verb: 'undo', steps: u };
  if (u === 0) return null;
  const r = redo.findIndex((e) => e.entry_id === id);
  return r >= 0 ? { verb: 'redo', steps: r + 1 } : null;
}
