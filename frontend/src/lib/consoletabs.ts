// A console tab's connection, as a state machine: what a tab does when its
// node starts or stops, when its link opens, fails or drops, and when a
// retry is due. Pure: the store (stores/consoles.ts) runs the effects.
//
//   waiting ──node started──▶ connecting ──opened──▶ connected
//      ▲                       │  ▲                     │
//      │ node stopped          │  │ retry due           │ link dropped,
//      │ (any phase)           ▼  │                     ▼ node started
//      └──────────────────── retrying ◀─────────────────┘
//
// A node without a console the page can show — telnet in a terminal, VNC
// as the guest's screen, for an aux tab its aux console in a terminal —
// (or deleted) makes the tab 'unavailable' until that changes. A tab
// follows its node's console type: when it changes, the tab connects to
// the new console.

import { backoff } from './live';
import type { NodeStatus } from './types';

export type TabPhase = 'waiting' | 'connecting' | 'connected' | 'retrying' | 'unavailable';

/** The consoles a tab shows: a terminal (telnet), a screen (VNC), or a
 * terminal on the node's aux console (a shell in a Docker container). */
export type TabKind = 'telnet' | 'vnc' | 'aux';

/** What the tab knows of its node: its status, and the console the page
 * can reach (null: none, and why when the page says more than that).
 * null: the node is gone. */
export interface NodeView {
  status: NodeStatus;
  console: TabKind | null;
  why?: string;
}

export interface TabMachine {
  phase: TabPhase;
  node: NodeView | null;
  /** Failed attempts since the last connection (for the backoff). */
  attempt: number;
  /** Why the tab is not connected, in a few words ('' when it is). */
  note: string;
}

export type TabEvent =
  | { kind: 'node'; node: NodeView | null }
  | { kind: 'opened' }
  | { kind: 'dropped'; reason: string }
  | { kind: 'failed'; message: string }
  | { kind: 'retry' };

export type TabEffect =
  | { kind: 'connect' }
  | { kind: 'disconnect' }
  | { kind: 'schedule'; ms: number };

/** Whether a tab with this phase has a link open or being opened. */
export const linked = (p: TabPhase): boolean => p === 'connecting' || p === 'connected';

function reachable(n: NodeView | null): boolean {
  return n !== null && n.console !== null && n.status === 'started';
}

function idleNote(n: NodeView | null): { phase: TabPhase; note: string } {
  if (n === null) return { phase: 'unavailable', note: 'deleted' };
  if (n.console === null) return { phase: 'unavailable', note: n.why ?? 'no telnet or VNC console' };
  return { phase: 'waiting', note: n.status };
}

/** initial is a new tab's machine before its node is known. */
export function initial(): TabMachine {
  return { phase: 'waiting', node: null, attempt: 0, note: '' };
}

/** step is what a tab does on an event: its next machine and the effects
 * to run (connect: open a link; disconnect: close it; schedule: a retry
 * event after ms). */
export function step(m: TabMachine, e: TabEvent): { next: TabMachine; effects: TabEffect[] } {
  switch (e.kind) {
    case 'node': {
      const was = linked(m.phase);
      if (!reachable(e.node)) {
        const idle = idleNote(e.node);
        return { next: { ...m, node: e.node, ...idle, attempt: 0 }, effects: was ? [{ kind: 'disconnect' }] : [] };
      }
      if (was && m.node?.console === e.node?.console) return { next: { ...m, node: e.node }, effects: [] };
      if (was) {
        // Another console: the old link goes, the new one opens.
        return { next: { ...m, node: e.node, phase: 'connecting', attempt: 0, note: 'connecting' }, effects: [{ kind: 'disconnect' }, { kind: 'connect' }] };
      }
      // Started (again): connect at once.
      return { next: { ...m, node: e.node, phase: 'connecting', attempt: 0, note: 'connecting' }, effects: [{ kind: 'connect' }] };
    }
    case 'opened':
      if (m.phase !== 'connecting') return { next: m, effects: [{ kind: 'disconnect' }] }; // no longer wanted
      return { next: { ...m, phase: 'connected', attempt: 0, note: '' }, effects: [] };
    case 'dropped':
    case 'failed': {
      if (!linked(m.phase)) return { next: m, effects: [] };
      if (!reachable(m.node)) return { next: { ...m, ...idleNote(m.node), attempt: 0 }, effects: [] };
      // The node is started as far as we know: a console reset, or the
      // news of a stop on its way. Try again, later each time.
      const note = e.kind === 'dropped' ? e.reason : e.message;
      return { next: { ...m, phase: 'retrying', attempt: m.attempt + 1, note }, effects: [{ kind: 'schedule', ms: backoff(m.attempt) }] };
    }
    case 'retry':
      if (m.phase !== 'retrying') return { next: m, effects: [] };
      if (!reachable(m.node)) return { next: { ...m, ...idleNote(m.node) }, effects: [] };
      return { next: { ...m, phase: 'connecting', note: 'connecting' }, effects: [{ kind: 'connect' }] };
  }
}

/** tabLabel is the state a tab shows beside its node's name. */
export function tabLabel(m: TabMachine): string {
  switch (m.phase) {
    case 'connected': return 'connected';
    case 'connecting': return 'connecting…';
    case 'retrying': return 'reconnecting…';
    case 'waiting': return m.note || 'waiting';
    case 'unavailable': return m.note;
  }
}

/** moveTab is the tab delta steps from cur in a list of keys, wrapping. */
export function moveTab(keys: readonly string[], cur: string | null, delta: number): string | null {
  if (keys.length === 0) return null;
  const i = cur === null ? -1 : keys.indexOf(cur);
  if (i < 0) return keys[delta >= 0 ? 0 : keys.length - 1];
  return keys[(((i + delta) % keys.length) + keys.length) % keys.length];
}
