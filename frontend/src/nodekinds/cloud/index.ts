// Clouds: the registry's entry. Its panel edits the ports, each on a
// host interface or a UDP tunnel.

import type { CloudPort } from '../../lib/types';
import { clone, partBody, same } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

const ports = (p: Record<string, unknown> | undefined) => (Array.isArray(p?.ports_mapping) ? p.ports_mapping : []) as CloudPort[];

export default defineKind<CloudPort[]>({
  type: 'cloud',
  title: 'Cloud',
  order: 60,
  paletteRank: 5,
  form: {
    read: (n) => clone(ports(n.properties)),
    update: (n, f) => {
      const after = f.map((c) => ({ ...c, port_number: Number(c.port_number) }));
      return partBody({ properties: same(after, n.properties?.ports_mapping ?? []) ? null : { ports_mapping: after } });
    },
    fields: ['ports_mapping', 'interfaces'],
  },
  Editor,
});
