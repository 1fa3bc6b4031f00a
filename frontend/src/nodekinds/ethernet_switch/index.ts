// Ethernet switches: the registry's entry. Its panel edits the port
// table (access, dot1q, QinQ ports and their VLANs).

import { toWireSwitchPorts } from './model';
import type { EthernetSwitchPort } from '../../lib/types';
import { clone, partBody, same } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

const ports = (p: Record<string, unknown> | undefined) => (Array.isArray(p?.ports_mapping) ? p.ports_mapping : []) as EthernetSwitchPort[];

export default defineKind<EthernetSwitchPort[]>({
  type: 'ethernet_switch',
  title: 'Ethernet switch',
  order: 20,
  paletteRank: 1,
  form: {
    read: (n) => clone(ports(n.properties)).map((sp) => ({ ...sp, ethertype: sp.ethertype || null })),
    update: (n, f) => {
      for (let i = 0; i < f.length; i++) {
        const sp = f[i];
        if (!Number.isInteger(Number(sp.port_number)) || String(sp.port_number) === '') {
          return { ok: false, field: 'ports_mapping', row: i, message: `Row ${i + 1}: the port number must be a whole number` };
        }
        if (sp.vlan !== undefined && sp.vlan !== null && !Number.isInteger(Number(sp.vlan))) {
          return { ok: false, field: 'ports_mapping', row: i, message: `Row ${i + 1}: the VLAN must be a whole number` };
        }
      }
      const after = toWireSwitchPorts(f);
      const before = toWireSwitchPorts(ports(n.properties));
      return partBody({ properties: same(after, before) ? null : { ports_mapping: after } });
    },
    fields: ['ports_mapping'],
  },
  Editor,
});
