// Ethernet hubs: the registry's entry. Its panel edits the port list.

import type { EthernetHubPort } from '../../lib/types';
import { clone, partBody, same } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

const ports = (p: Record<string, unknown> | undefined) => (Array.isArray(p?.ports_mapping) ? p.ports_mapping : []) as EthernetHubPort[];
const wire = (rows: readonly EthernetHubPort[]) => rows.map((h) => ({ name: h.name, port_number: Number(h.port_number) }));

export default defineKind<EthernetHubPort[]>({
  type: 'ethernet_hub',
  title: 'Ethernet hub',
  order: 30,
  paletteRank: 2,
  form: {
    read: (n) => clone(ports(n.properties)),
    update: (n, f) => {
      const after = wire(f);
      return partBody({ properties: same(after, wire(ports(n.properties))) ? null : { ports_mapping: after } });
    },
    fields: ['ports_mapping'],
  },
  Editor,
});
