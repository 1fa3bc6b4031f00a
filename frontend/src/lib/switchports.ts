// Editing the port tables of Ethernet switches, hubs and clouds.

import type { CloudPort, EthernetHubPort, EthernetSwitchPort, Ethertype, SwitchPortType } from './types';

/** The fields a bulk edit may set on the selected rows. */
export interface BulkPatch { type?: SwitchPortType; vlan?: number; ethertype?: Ethertype }

/** bulkEdit applies patch to the rows at the selected indexes and returns new rows. */
export function bulkEdit(ports: readonly EthernetSwitchPort[], selected: ReadonlySet<number>, patch: BulkPatch): EthernetSwitchPort[] {
  return ports.map((p, i) => (selected.has(i) ? { ...p, ...definedOnly(patch) } : p));
}

function definedOnly(patch: BulkPatch): BulkPatch {
  const out: BulkPatch = {};
  if (patch.type !== undefined) out.type = patch.type;
  if (patch.vlan !== undefined) out.vlan = patch.vlan;
  if (patch.ethertype !== undefined) out.ethertype = patch.ethertype;
  return out;
}

/** nextPortNumber is the lowest port number no row uses. */
export function nextPortNumber(ports: readonly { port_number: number }[]): number {
  const used = new Set(ports.map((p) => p.port_number));
  let n = 0;
  while (used.has(n)) n++;
  return n;
}

export function addSwitchPort(ports: readonly EthernetSwitchPort[]): EthernetSwitchPort[] {
  const n = nextPortNumber(ports);
  return [...ports, { name: `Ethernet${n}`, port_number: n, type: 'access', vlan: 1, ethertype: null }];
}

export function addHubPort(ports: readonly EthernetHubPort[]): EthernetHubPort[] {
  const n = nextPortNumber(ports);
  return [...ports, { name: `Ethernet${n}`, port_number: n }];
}

export function addCloudPort(ports: readonly CloudPort[], iface: string, type: 'ethernet' | 'tap'): CloudPort[] {
  return [...ports, { name: iface, port_number: nextPortNumber(ports), type, interface: iface }];
}

/** removeRows drops the rows at the given indexes. */
export function removeRows<T>(rows: readonly T[], selected: ReadonlySet<number>): T[] {
  return rows.filter((_, i) => !selected.has(i));
}

/** toWireSwitchPorts prepares rows for the PUT: numbers as numbers, no
 * VLAN when none was typed, the ethertype the user chose (null for none).
 * Which combinations are valid is the server's to say. */
export function toWireSwitchPorts(ports: readonly EthernetSwitchPort[]): EthernetSwitchPort[] {
  return ports.map((p) => {
    const out: EthernetSwitchPort = { name: p.name, port_number: Number(p.port_number), type: p.type };
    if (p.vlan !== undefined && p.vlan !== null && !Number.isNaN(Number(p.vlan)) && String(p.vlan) !== '') out.vlan = Number(p.vlan);
    out.ethertype = p.ethertype || null;
    return out;
  });
}

/** The selection after toggling row i; with range (Shift) from the anchor. */
export function toggleRow(selected: ReadonlySet<number>, i: number, anchor: number | null, range: boolean): Set<number> {
  const next = new Set(selected);
  if (range && anchor !== null) {
    const [a, b] = anchor < i ? [anchor, i] : [i, anchor];
    for (let k = a; k <= b; k++) next.add(k);
    return next;
  }
  if (next.has(i)) next.delete(i);
  else next.add(i);
  return next;
}
