// What the switches that map one end to another share (Frame Relay:
// "port:dlci", ATM: "port:vpi:vci" or "port:vpi"): the wire form, an
// object keyed by the start of each mapping, read into and built from
// one editor row per mapping, and the form part that sends it only when
// it changed. Each type's model.ts says what its ends are.

import type { FormPart } from './kind';
import { partBody, same } from './helpers';

/** A switch's mappings on the wire: start end → other end. */
export type Mappings = Record<string, string>;

/** A column of the mappings table (MappingTable.svelte): the row's key,
 * its heading, its name for a screen reader ("DLCI" → "Source DLCI of
 * circuit 1"), its test id suffix, and a hint shown while it is empty. */
export interface Column<K extends string = string> { key: K; label: string; name: string; testid: string; placeholder?: string }

/** rowsToMappings' answer: the wire mappings, or the row that cannot be sent and why. */
export type RowsResult = { ok: true; mappings: Mappings } | { ok: false; row: number; message: string };

/** What a type makes of one row: its two ends, or what is wrong with it. */
export type RowEnds = { ok: true; src: string; dst: string } | { ok: false; message: string };

/** num is a field's order: its number, or after every number if it is none. */
export const num = (s: string): number => (/^\d+$/.test(s) ? Number(s) : Number.MAX_SAFE_INTEGER);

/** inc is a field plus one, or the field as typed if it is no number. */
export const inc = (s: string): string => (/^\d+$/.test(s) ? String(Number(s) + 1) : s);

/** splitEnd cuts a wire end into n fields ('' where it has fewer); a
 * longer end keeps its rest in the last field, so nothing typed is lost. */
export function splitEnd(s: string, n: number): string[] {
  const parts = s.split(':');
  const out = parts.slice(0, n - 1);
  out.push(parts.slice(n - 1).join(':'));
  while (out.length < n) out.push('');
  return out;
}

/** joinEnd joins an end's typed fields, trimmed; empty fields at its
 * tail are left out (an ATM path has no VCI). */
export function joinEnd(fields: readonly string[]): string {
  const f = fields.map((s) => s.trim());
  while (f.length > 1 && f[f.length - 1] === '') f.pop();
  return f.join(':');
}

/** buildMappings makes the wire mappings from the rows, each read by
 * ends. It fails at the first row ends refuses, and where two rows
 * start at the same end: the wire form, keyed by the start, holds one. */
export function buildMappings<R>(rows: readonly R[], ends: (r: R) => RowEnds): RowsResult {
  const out: Mappings = {};
  const starts = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const e = ends(rows[i]);
    if (!e.ok) return { ok: false, row: i, message: `Row ${i + 1}: ${e.message}` };
    const prev = starts.get(e.src);
    if (prev !== undefined) {
      return { ok: false, row: i, message: `Rows ${prev + 1} and ${i + 1} both start at ${e.src}; the mappings hold one per start` };
    }
    starts.set(e.src, i);
    out[e.src] = e.dst;
  }
  return { ok: true, mappings: out };
}

/** mappingsForm is the form part of a switch whose one property is its
 * mappings: rows read from the node, sent back only when they changed. */
export function mappingsForm<R>(toRows: (m: Mappings | undefined) => R[], toMappings: (rows: readonly R[]) => RowsResult): FormPart<R[]> {
  return {
    read: (n) => toRows(n.properties?.mappings as Mappings | undefined),
    update: (n, f) => {
      const r = toMappings(f);
      if (!r.ok) return { ok: false, field: 'mappings', row: r.row, message: r.message };
      const before = toMappings(toRows(n.properties?.mappings as Mappings | undefined));
      return partBody({ properties: before.ok && same(r.mappings, before.mappings) ? null : { mappings: r.mappings } });
    },
    fields: ['mappings'],
  };
}
