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
