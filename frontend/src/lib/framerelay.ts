// Frame Relay switch mappings: {"1:101": "2:201"} on the wire, one row per
// virtual circuit in the editor.

import type { FrameRelayMappings } from './types';

export interface FrEnd { port: number; dlci: number }

/** A row of the editor; fields are strings as typed. */
export interface FrRow { srcPort: string; srcDlci: string; dstPort: string; dstDlci: string }

export const DLCI_MAX = 1023;

/** parseEnd reads "port:dlci", or answers null. */
export function parseEnd(s: string): FrEnd | null {
  const m = /^\s*(\d+)\s*:\s*(\d+)\s*$/.exec(s);
  if (!m) return null;
  return { port: Number(m[1]), dlci: Number(m[2]) };
}

export const formatEnd = (e: FrEnd) => `${e.port}:${e.dlci}`;

/** mappingsToRows turns wire mappings into editor rows, ordered by source port then DLCI. */
export function mappingsToRows(m: FrameRelayMappings | undefined): FrRow[] {
  const rows: FrRow[] = [];
  for (const [src, dst] of Object.entries(m ?? {})) {
    const [sp = src, sd = ''] = src.split(':');
    const [dp = dst, dd = ''] = dst.split(':');
    rows.push({ srcPort: sp, srcDlci: sd, dstPort: dp, dstDlci: dd });
  }
  const n = (s: string) => (/^\d+$/.test(s) ? Number(s) : Number.MAX_SAFE_INTEGER);
  return rows.sort((a, b) => n(a.srcPort) - n(b.srcPort) || n(a.srcDlci) - n(b.srcDlci));
}

export type RowsResult =
  | { ok: true; mappings: FrameRelayMappings }
  | { ok: false; row: number; message: string };

/** rowsToMappings checks the rows and builds the wire mappings. */
export function rowsToMappings(rows: readonly FrRow[]): RowsResult {
  const out: FrameRelayMappings = {};
  const ends = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const src = parseEnd(`${r.srcPort}:${r.srcDlci}`);
    const dst = parseEnd(`${r.dstPort}:${r.dstDlci}`);
    if (!src || !dst) {
      return { ok: false, row: i, message: `Row ${i + 1}: give each port and DLCI as a whole number (for example 1 and 101)` };
    }
    for (const e of [src, dst]) {
      if (e.dlci > DLCI_MAX) return { ok: false, row: i, message: `Row ${i + 1}: DLCI ${e.dlci} is out of range; use 0 to ${DLCI_MAX}` };
    }
    if (src.port === dst.port && src.dlci === dst.dlci) {
      return { ok: false, row: i, message: `Row ${i + 1}: a circuit cannot end where it starts` };
    }
    for (const e of [src, dst]) {
      const k = formatEnd(e);
      const prev = ends.get(k);
      if (prev !== undefined) {
        return { ok: false, row: i, message: `Row ${i + 1}: ${k} is already used by row ${prev + 1}; each port:DLCI carries one circuit` };
      }
      ends.set(k, i);
    }
    out[formatEnd(src)] = formatEnd(dst);
  }
  return { ok: true, mappings: out };
}

/** nextRow proposes a new circuit: the next DLCIs after the last row's. */
export function nextRow(rows: readonly FrRow[]): FrRow {
  const last = rows[rows.length - 1];
  if (!last) return { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' };
  const inc = (s: string) => (/^\d+$/.test(s) ? String(Math.min(Number(s) + 1, DLCI_MAX)) : s);
  return { srcPort: last.srcPort, srcDlci: inc(last.srcDlci), dstPort: last.dstPort, dstDlci: inc(last.dstDlci) };
}
