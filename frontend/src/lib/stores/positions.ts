// Positions the user has moved nodes to that the server has not confirmed
// yet (a drag just ended, arrow-key nudges): the canvas draws them there,
// and drops them on success (the server agrees) or failure (snap back).

import { get, writable } from 'svelte/store';
import { withGesture } from '../gesture';
import { nudged, type XY } from '../layout';
import { moveNodes, nodes } from './nodes';
import { failed } from './notices';

export const overrides = writable<ReadonlyMap<string, XY>>(new Map());

function hold(moves: ReadonlyMap<string, XY>): void {
  overrides.update((m) => {
    const next = new Map(m);
    for (const [id, p] of moves) next.set(id, p);
    return next;
  });
}

function release(moves: ReadonlyMap<string, XY>): void {
  overrides.update((m) => {
    const next = new Map(m);
    for (const [id, p] of moves) {
      const cur = next.get(id);
      if (cur && cur.x === p.x && cur.y === p.y) next.delete(id); // not moved again meanwhile
    }
    return next;
  });
}

/** commitMoves draws nodes at their new places and saves them. */
export async function commitMoves(pid: string, moves: ReadonlyMap<string, XY>): Promise<void> {
  if (moves.size === 0) return;
  const rounded = new Map([...moves].map(([id, p]) => [id, { x: Math.round(p.x), y: Math.round(p.y) }]));
  hold(rounded);
  const errors = await withGesture(() => moveNodes(pid, rounded)); // one change, however many nodes
  release(rounded);
  if (errors.length > 0) failed(`Could not move ${errors.length === 1 ? 'a node' : `${errors.length} nodes`}`, errors[0]);
}

let pending = new Map<string, XY>();
let timer: ReturnType<typeof setTimeout> | null = null;

/** nudge moves nodes by (dx, dy) at once and saves them shortly after the
 * last key press (one PUT per node for a burst of presses). */
export function nudge(pid: string, ids: Iterable<string>, dx: number, dy: number): void {
  const all = get(nodes);
  const held = get(overrides);
  const moves = new Map<string, XY>();
  for (const id of ids) {
    const n = all.get(id);
    if (!n) continue;
    moves.set(id, nudged(held.get(id) ?? { x: n.x, y: n.y }, dx, dy));
  }
  hold(moves);
  for (const [id, p] of moves) pending.set(id, p);
  if (timer) clearTimeout(timer);
  timer = setTimeout(() => {
    const batch = pending;
    pending = new Map();
    timer = null;
    void commitMoves(pid, batch);
  }, 300);
}
