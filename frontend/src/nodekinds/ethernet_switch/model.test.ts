import { describe, expect, it } from 'vitest';
import { addSwitchPort, bulkEdit, toWireSwitchPorts } from './model';
import type { EthernetSwitchPort } from '../../lib/types';

const ports: EthernetSwitchPort[] = [0, 1, 2, 3].map((n) => ({ name: `Ethernet${n}`, port_number: n, type: 'access', vlan: 1, ethertype: null }));

describe('switch port table', () => {
  it('bulk-edits only the selected rows', () => {
    const out = bulkEdit(ports, new Set([1, 2]), { type: 'dot1q', vlan: 20 });
    expect(out.map((p) => [p.type, p.vlan])).toEqual([['access', 1], ['dot1q', 20], ['dot1q', 20], ['access', 1]]);
    expect(ports[1].type).toBe('access'); // the input is not changed
  });

  it('leaves fields the patch does not set', () => {
    const out = bulkEdit(ports, new Set([0]), { vlan: 30 });
    expect(out[0]).toMatchObject({ type: 'access', vlan: 30 });
  });

  it('sets the ethertype the user chose and invents none', () => {
    const q = bulkEdit(ports, new Set([0]), { type: 'qinq' });
    expect(q[0].ethertype).toBeNull();
    const q2 = bulkEdit(ports, new Set([0]), { type: 'qinq', ethertype: '0x88A8' });
    expect(q2[0].ethertype).toBe('0x88A8');
    expect(toWireSwitchPorts(q2)[0].ethertype).toBe('0x88A8');
    expect(toWireSwitchPorts([{ ...q2[0], ethertype: undefined }])[0].ethertype).toBeNull();
  });

  it('adds an access port in VLAN 1 at the lowest free number', () => {
    expect(addSwitchPort(ports.filter((p) => p.port_number !== 1)).at(-1)).toEqual({ name: 'Ethernet1', port_number: 1, type: 'access', vlan: 1, ethertype: null });
  });

  it('sends numbers as numbers and no VLAN when none was typed', () => {
    const typed = [{ name: 'e0', port_number: '4' as unknown as number, type: 'dot1q' as const, vlan: '7' as unknown as number }, { name: 'e1', port_number: 5, type: 'access' as const, vlan: undefined }];
    expect(toWireSwitchPorts(typed)).toEqual([
      { name: 'e0', port_number: 4, type: 'dot1q', vlan: 7, ethertype: null },
      { name: 'e1', port_number: 5, type: 'access', ethertype: null },
    ]);
  });
});
