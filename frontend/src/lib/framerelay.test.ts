import { describe, expect, it } from 'vitest';
import { mappingsToRows, nextRow, parseEnd, rowsToMappings } from './framerelay';

describe('Frame Relay mappings', () => {
  it('parses port:DLCI ends and refuses anything else', () => {
    expect(parseEnd('1:101')).toEqual({ port: 1, dlci: 101 });
    expect(parseEnd(' 2 : 201 ')).toEqual({ port: 2, dlci: 201 });
    expect(parseEnd('3:x')).toBeNull();
    expect(parseEnd('3')).toBeNull();
    expect(parseEnd('-1:5')).toBeNull();
  });

  it('round-trips the wire form through editor rows, ordered by port and DLCI', () => {
    const wire = { '2:202': '1:102', '1:101': '2:201' };
    const rows = mappingsToRows(wire);
    expect(rows).toEqual([
      { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' },
      { srcPort: '2', srcDlci: '202', dstPort: '1', dstDlci: '102' },
    ]);
    expect(rowsToMappings(rows)).toEqual({ ok: true, mappings: { '1:101': '2:201', '2:202': '1:102' } });
  });

  it('names the row of a bad entry', () => {
    const r = rowsToMappings([
      { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' },
      { srcPort: '1', srcDlci: 'abc', dstPort: '2', dstDlci: '202' },
    ]);
    expect(r).toMatchObject({ ok: false, row: 1 });
  });

  it('refuses DLCIs above 1023 and an end used twice', () => {
    expect(rowsToMappings([{ srcPort: '1', srcDlci: '1024', dstPort: '2', dstDlci: '1' }])).toMatchObject({ ok: false, row: 0 });
    const dup = rowsToMappings([
      { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' },
      { srcPort: '3', srcDlci: '301', dstPort: '2', dstDlci: '201' },
    ]);
    expect(dup.ok).toBe(false);
    if (!dup.ok) expect(dup.message).toContain('2:201');
  });

  it('proposes the next circuit after the last one', () => {
    expect(nextRow([])).toEqual({ srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' });
    expect(nextRow([{ srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' }])).toEqual({ srcPort: '1', srcDlci: '102', dstPort: '2', dstDlci: '202' });
  });
});
