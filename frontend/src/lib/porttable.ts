// The rows of a port table (an Ethernet switch's, a hub's, a cloud's):
// the next free port number, removing rows, selecting them. What each
// type's rows hold is its model's (src/nodekinds/<type>/model.ts).

/** nextPortNumber is the lowest port number no row uses. */
export function nextPortNumber(ports: readonly { port_number: number }[]): number {
  const used = new Set(ports.map((p) => p.port_number));
  let n = 0;
  while (used.has(n)) n++;
  return n;
}

/** removeRows drops the rows at the given indexes. */
export function removeRows<T>(rows: readonly T[], selected: ReadonlySet<number>): T[] {
  return rows.filter((_, i) => !selected.has(i));
}

/** The selection after toggling row i; with range (Shift) from the anchor. */
export function toggleRow(selected: ReadonlySet<number>, i: number, anchor: number | null, range: boolean): Set<number> {
  const next = new Set(selected);
  if (range && anchor !== null) {
    const [a, b] = anchor < i ? [anchor, i] : [i, anchor];
    for (let k = a; k <= b; k++) next.add(k);
    return next;
  }
  if (next.has(i)) next.delete(i);
  else next.add(i);
  return next;
}
