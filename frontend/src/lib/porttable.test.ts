import { describe, expect, it } from 'vitest';
import { nextPortNumber, removeRows, toggleRow } from './porttable';
import type { EthernetSwitchPort } from './types';

const ports: EthernetSwitchPort[] = [0, 1, 2, 3].map((n) => ({ name: `Ethernet${n}`, port_number: n, type: 'access', vlan: 1, ethertype: null }));

describe('a port table', () => {
  it('removes selected rows, and finds the lowest free number', () => {
    const gap = removeRows(ports, new Set([1]));
    expect(gap.map((p) => p.port_number)).toEqual([0, 2, 3]);
    expect(nextPortNumber(gap)).toBe(1);
  });

  it('toggles rows, and Shift selects a range from the anchor', () => {
    let s = toggleRow(new Set(), 1, null, false);
    expect([...s]).toEqual([1]);
    s = toggleRow(s, 3, 1, true);
    expect([...s].sort()).toEqual([1, 2, 3]);
    s = toggleRow(s, 2, 3, false);
    expect([...s].sort()).toEqual([1, 3]);
  });
});
