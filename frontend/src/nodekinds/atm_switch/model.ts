// ATM switch mappings: {"1:1:100": "2:1:100"} (a virtual channel,
// port:VPI:VCI) or {"1:2": "2:2"} (a virtual path, port:VPI) on the wire,
// one row per connection in the editor (the common part in
// ../mappings.ts). A row is checked here for what its own fields show:
// numbers in range and a channel not joined to a path, so the table names
// the row. What needs the whole table (an end used twice, a channel in a
// VPI a path switches whole, a connection to itself) is the server's to
// say (app.ATMConnections), with a 400 whose field is "properties.mappings".

import type { ATMMappings } from '../../lib/types';
import { buildMappings, inc, joinEnd, num, splitEnd, type RowEnds, type RowsResult } from '../mappings';

export type { RowsResult };

/** A row of the editor; fields are strings as typed, the VCIs empty for a virtual path. */
export interface AtmRow { srcPort: string; srcVpi: string; srcVci: string; dstPort: string; dstVpi: string; dstVci: string }

/** The ranges of an end's fields: a TCP/UDP-sized port, the cell
 * header's 12-bit VPI and 16-bit VCI (app.MaxVPI, app.MaxVCI). */
const ranges = { port: 65535, VPI: 4095, VCI: 65535 } as const;

/** mappingsToRows turns wire mappings into editor rows, ordered by source port, VPI then VCI. */
export function mappingsToRows(m: ATMMappings | undefined): AtmRow[] {
  const rows: AtmRow[] = [];
  for (const [src, dst] of Object.entries(m ?? {})) {
    const [sp, sv, sc] = splitEnd(src, 3);
    const [dp, dv, dc] = splitEnd(dst, 3);
    rows.push({ srcPort: sp, srcVpi: sv, srcVci: sc, dstPort: dp, dstVpi: dv, dstVci: dc });
  }
  return rows.sort((a, b) => num(a.srcPort) - num(b.srcPort) || num(a.srcVpi) - num(b.srcVpi) || num(a.srcVci) - num(b.srcVci));
}

/** field checks one typed number of an end: the words of what is wrong, or null. */
function field(side: string, what: keyof typeof ranges, typed: string): string | null {
  const s = typed.trim();
  if (s === '') return `the ${side} ${what} is empty; type a number from 0 to ${ranges[what]}`;
  if (!/^(0|[1-9]\d*)$/.test(s)) return `the ${side} ${what} "${s}" is not a number; type one from 0 to ${ranges[what]}`;
  if (Number(s) > ranges[what]) return `${what} ${s} is out of range; use 0 to ${ranges[what]}`;
  return null;
}

/** rowEnds checks a row and makes its two ends. */
function rowEnds(r: AtmRow): RowEnds {
  const vc = [r.srcVci.trim() !== '', r.dstVci.trim() !== ''];
  if (vc[0] !== vc[1]) {
    return { ok: false, message: 'a virtual channel has a VCI at both ends (port:VPI:VCI) and a virtual path at neither (port:VPI); fill in both VCIs or clear both' };
  }
  const checks: [string, keyof typeof ranges, string][] = [
    ['source', 'port', r.srcPort], ['source', 'VPI', r.srcVpi],
    ['destination', 'port', r.dstPort], ['destination', 'VPI', r.dstVpi],
  ];
  if (vc[0]) checks.push(['source', 'VCI', r.srcVci], ['destination', 'VCI', r.dstVci]);
  for (const [side, what, typed] of checks) {
    const wrong = field(side, what, typed);
    if (wrong) return { ok: false, message: wrong };
  }
  return { ok: true, src: joinEnd([r.srcPort, r.srcVpi, r.srcVci]), dst: joinEnd([r.dstPort, r.dstVpi, r.dstVci]) };
}

/** rowsToMappings builds the wire mappings from the rows. It fails at a
 * row whose fields are no numbers in range or that joins a channel to a
 * path, and where two rows start at the same end. */
export function rowsToMappings(rows: readonly AtmRow[]): RowsResult {
  return buildMappings(rows, rowEnds);
}

/** nextRow proposes a new connection: after a channel the next VCIs,
 * after a path the next VPIs. */
export function nextRow(rows: readonly AtmRow[]): AtmRow {
  const last = rows[rows.length - 1];
  if (!last) return { srcPort: '1', srcVpi: '1', srcVci: '100', dstPort: '2', dstVpi: '1', dstVci: '100' };
  if (last.srcVci.trim() === '' && last.dstVci.trim() === '') {
    return { ...last, srcVpi: inc(last.srcVpi), dstVpi: inc(last.dstVpi) };
  }
  return { ...last, srcVci: inc(last.srcVci), dstVci: inc(last.dstVci) };
}
