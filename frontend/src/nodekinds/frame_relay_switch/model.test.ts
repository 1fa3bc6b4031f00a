import { describe, expect, it } from 'vitest';
import { mappingsToRows, nextRow, rowsToMappings } from './model';

describe('Frame Relay mappings', () => {
  it('round-trips the wire form through editor rows, ordered by port and DLCI', () => {
    const wire = { '2:202': '1:102', '1:101': '2:201' };
    const rows = mappingsToRows(wire);
    expect(rows).toEqual([
      { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' },
      { srcPort: '2', srcDlci: '202', dstPort: '1', dstDlci: '102' },
    ]);
    expect(rowsToMappings(rows)).toEqual({ ok: true, mappings: { '1:101': '2:201', '2:202': '1:102' } });
  });

  it('sends what was typed (trimmed): the server says what is wrong with it', () => {
    expect(rowsToMappings([{ srcPort: ' 1', srcDlci: '5000 ', dstPort: '2', dstDlci: 'x' }])).toEqual({ ok: true, mappings: { '1:5000': '2:x' } });
  });

  it('names the row that the wire form cannot hold: a second circuit from the same start', () => {
    const r = rowsToMappings([
      { srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' },
      { srcPort: '1', srcDlci: '101', dstPort: '3', dstDlci: '301' },
    ]);
    expect(r).toMatchObject({ ok: false, row: 1 });
  });

  it('proposes the next circuit after the last one', () => {
    expect(nextRow([])).toEqual({ srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' });
    expect(nextRow([{ srcPort: '1', srcDlci: '101', dstPort: '2', dstDlci: '201' }])).toEqual({ srcPort: '1', srcDlci: '102', dstPort: '2', dstDlci: '202' });
  });
});
