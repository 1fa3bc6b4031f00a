// An Ethernet switch's port table as the panel edits it: adding a port,
// the bulk edit of the selected rows, and the rows as the PUT sends them.

import { nextPortNumber } from '../../lib/porttable';
import type { EthernetSwitchPort, Ethertype, SwitchPortType } from '../../lib/types';

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

/** addSwitchPort adds an access port in VLAN 1 at the lowest free number. */
export function addSwitchPort(ports: readonly EthernetSwitchPort[]): EthernetSwitchPort[] {
  const n = nextPortNumber(ports);
  return [...ports, { name: `Ethernet${n}`, port_number: n, type: 'access', vlan: 1, ethertype: null }];
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
