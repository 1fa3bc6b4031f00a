// Frame Relay switch mappings: {"1:101": "2:201"} on the wire, one row per
// virtual circuit in the editor. Only the conversion lives here (its
// common part in ../mappings.ts): what a valid circuit is (DLCI range, an
// end used twice, a circuit to itself) is the server's to say, with a 400
// whose field is "properties.mappings".

import type { FrameRelayMappings } from '../../lib/types';
import { buildMappings, inc, num, splitEnd, type RowsResult } from '../mappings';

export type { RowsResult };

/** A row of the editor; fields are strings as typed. */
export interface FrRow { srcPort: string; srcDlci: string; dstPort: string; dstDlci: string }

/** mappingsToRows turns wire mappings into editor rows, ordered by source port then DLCI. */
export function mappingsToRows(m: FrameRelayMappings | undefined): FrRow[] {
  const rows: FrRow[] = [];
  for (const [src, dst] of Object.entries(m ?? {})) {
    const [sp, sd] = splitEnd(src, 2);
    const [dp, dd] = splitEnd(dst, 2);
    rows.push({ srcPort: sp, srcDlci: sd, dstPort: dp, dstDlci: dd });
  }
  return rows.sort((a, b) => num(a.srcPort) - num(b.srcPort) || num(a.srcDlci) - num(b.srcDlci));
}

/** rowsToMappings builds the wire mappings from the rows, as typed. It
 * fails only when two rows start at the same port:DLCI: the wire form, an
 * object keyed by the start, cannot hold both. */
export function rowsToMappings(rows: readonly FrRow[]): RowsResult {
  return buildMappings(rows, (r) => ({ ok: true, src: `${r.srcPort.trim()}:${r.srcDlci.trim()}`, dst: `${r.dstPort.trim()}:${r.dstDlci.trim()}` }));
}

/** nextRow proposes a new circuit: the next DLCIs after the last row's. */
export function nextRow(rows: readonly FrRow[]): FrRow {
  const last = rows[rows.length - 1];
  if (!last) return { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' };
  return { srcPort: last.srcPort, srcDlci: inc(last.srcDlci), dstPort: last.dstPort, dstDlci: inc(last.dstDlci) };
}
