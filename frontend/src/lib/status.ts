// How a node's run state is shown: a colour and a word.

import { assertNever } from './assert';
import type { NodeStatus } from './types';

export type StatusTone = 'green' | 'amber' | 'grey';

export function statusTone(s: NodeStatus): StatusTone {
  switch (s) {
    case 'started': return 'green';
    case 'suspended': return 'amber';
    case 'stopped': return 'grey';
    default: return assertNever(s, 'node status');
  }
}

/** The CSS colour variable of a status. */
export function statusColor(s: NodeStatus): string {
  return `var(--status-${statusTone(s)})`;
}

export function statusLabel(s: NodeStatus): string {
  switch (s) {
    case 'started': return 'Running';
    case 'suspended': return 'Suspended';
    case 'stopped': return 'Stopped';
    default: return assertNever(s, 'node status');
  }
}

/** A node's run state as a person reads it: its status, or booting while
 *  it runs and its console has not yet shown that it booted (the server's
 *  `booting`, nodedesk's own field: its status stays `started`). */
type RunState = { status: NodeStatus; booting?: boolean };

export function isBooting(n: RunState): boolean {
  return n.status === 'started' && n.booting === true;
}

/** The colour of a node's status dot: booting has its own. */
export function nodeStatusColor(n: RunState): string {
  return isBooting(n) ? 'var(--status-booting)' : statusColor(n.status);
}

export function nodeStatusLabel(n: RunState): string {
  return isBooting(n) ? 'Booting' : statusLabel(n.status);
}
