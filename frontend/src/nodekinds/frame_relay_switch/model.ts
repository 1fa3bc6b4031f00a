// Frame Relay switch mappings: {"1:101": "2:201"} on the wire, one row per
// virtual circuit in the editor. Only the conversion lives here: what a
// valid circuit is (DLCI range, an end used twice, a circuit to itself) is
// the server's to say, with a 400 whose field is "properties.mappings".

import type { FrameRelayMappings } from '../../lib/types';

/** A row of the editor; fields are strings as typed. */
export interface FrRow { srcPort: string; srcDlci: string; dstPort: string; dstDlci: string }

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

const end = (port: string, dlci: string) => `${port.trim()}:${dlci.trim()}`;

/** rowsToMappings builds the wire mappings from the rows, as typed. It
 * fails only when two rows start at the same port:DLCI: the wire form, an
 * object keyed by the start, cannot hold both. */
export function rowsToMappings(rows: readonly FrRow[]): RowsResult {
  const out: FrameRelayMappings = {};
  const starts = new Map<string, number>();
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i];
    const src = end(r.srcPort, r.srcDlci);
    const prev = starts.get(src);
    if (prev !== undefined) {
      return { ok: false, row: i, message: `Rows ${prev + 1} and ${i + 1} both start at ${src}; the mappings hold one circuit per start` };
    }
    starts.set(src, i);
    out[src] = end(r.dstPort, r.dstDlci);
  }
  return { ok: true, mappings: out };
}

/** nextRow proposes a new circuit: the next DLCIs after the last row's. */
export function nextRow(rows: readonly FrRow[]): FrRow {
  const last = rows[rows.length - 1];
  if (!last) return { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' };
  const inc = (s: string) => (/^\d+$/.test(s) ? String(Number(s) + 1) : s);
  return { srcPort: last.srcPort, srcDlci: inc(last.srcDlci), dstPort: last.dstPort, dstDlci: inc(last.dstDlci) };
}
