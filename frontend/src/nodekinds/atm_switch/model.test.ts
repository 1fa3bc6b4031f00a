import { describe, expect, it } from 'vitest';
import { mappingsToRows, nextRow, rowsToMappings, type AtmRow } from './model';

const vc = (sp: string, sv: string, sc: string, dp: string, dv: string, dc: string): AtmRow =>
  ({ srcPort: sp, srcVpi: sv, srcVci: sc, dstPort: dp, dstVpi: dv, dstVci: dc });
const vp = (sp: string, sv: string, dp: string, dv: string): AtmRow => vc(sp, sv, '', dp, dv, '');

describe('ATM mappings', () => {
  it('round-trips channels and paths through editor rows, ordered by port, VPI and VCI', () => {
    const wire = { '2:5': '3:6', '1:1:101': '2:1:201', '1:1:100': '2:1:200' };
    const rows = mappingsToRows(wire);
    expect(rows).toEqual([vc('1', '1', '100', '2', '1', '200'), vc('1', '1', '101', '2', '1', '201'), vp('2', '5', '3', '6')]);
    expect(rowsToMappings(rows)).toEqual({ ok: true, mappings: { '1:1:100': '2:1:200', '1:1:101': '2:1:201', '2:5': '3:6' } });
  });

  it('sends trimmed numbers, and a path without VCIs', () => {
    expect(rowsToMappings([vc(' 1', '0 ', '', '2', ' 4095', ' ')])).toEqual({ ok: true, mappings: { '1:0': '2:4095' } });
    expect(rowsToMappings([vc('65535', '4095', '65535', '0', '0', '0')])).toEqual({ ok: true, mappings: { '65535:4095:65535': '0:0:0' } });
  });

  it('refuses, naming the row, a channel joined to a path', () => {
    const r = rowsToMappings([vp('1', '2', '2', '2'), vc('1', '1', '100', '2', '1', '')]);
    expect(r).toMatchObject({ ok: false, row: 1 });
    expect(r.ok || r.message).toMatch(/^Row 2: .*VCI at both ends.*fill in both VCIs or clear both/);
  });

  it('refuses numbers out of range with the range to use', () => {
    expect(rowsToMappings([vc('1', '4096', '1', '2', '1', '1')])).toEqual({ ok: false, row: 0, message: 'Row 1: VPI 4096 is out of range; use 0 to 4095' });
    expect(rowsToMappings([vc('1', '1', '65536', '2', '1', '1')])).toMatchObject({ ok: false, message: /VCI 65536 is out of range; use 0 to 65535/ });
    expect(rowsToMappings([vp('1', '1', '65536', '1')])).toMatchObject({ ok: false, message: /port 65536 is out of range; use 0 to 65535/ });
  });

  it('refuses what is not a number, or an empty port or VPI', () => {
    expect(rowsToMappings([vp('x', '1', '2', '1')])).toMatchObject({ ok: false, row: 0, message: /source port "x" is not a number/ });
    expect(rowsToMappings([vp('1', '-1', '2', '1')])).toMatchObject({ ok: false, message: /source VPI "-1" is not a number/ });
    expect(rowsToMappings([vp('1', '01', '2', '1')])).toMatchObject({ ok: false, message: /"01" is not a number/ });
    expect(rowsToMappings([vp('1', '1', '2', '')])).toMatchObject({ ok: false, message: /destination VPI is empty/ });
  });

  it('names the row that the wire form cannot hold: a second connection from the same start', () => {
    const r = rowsToMappings([vc('1', '1', '100', '2', '1', '100'), vc('1', '1', '100', '3', '1', '100')]);
    expect(r).toMatchObject({ ok: false, row: 1, message: /Rows 1 and 2 both start at 1:1:100/ });
  });

  it('leaves what needs the whole table to the server: an end used twice is sent', () => {
    const rows = [vc('1', '1', '100', '2', '1', '100'), vc('3', '1', '100', '2', '1', '100')];
    expect(rowsToMappings(rows)).toEqual({ ok: true, mappings: { '1:1:100': '2:1:100', '3:1:100': '2:1:100' } });
  });

  it('proposes the next channel after a channel, the next path after a path', () => {
    expect(nextRow([])).toEqual(vc('1', '1', '100', '2', '1', '100'));
    expect(nextRow([vc('1', '1', '100', '2', '1', '100')])).toEqual(vc('1', '1', '101', '2', '1', '101'));
    expect(nextRow([vp('1', '2', '2', '2')])).toEqual(vp('1', '3', '2', '3'));
  });
});
