// NAT nodes: the registry's entry. Its panel turns allow_host_loopback
// on and off: the lab reaches services that listen only on the host's
// 127.0.0.1 (off unless the node says true).

import { partBody } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

const loopback = (p: Record<string, unknown> | undefined) => p?.allow_host_loopback === true;

export default defineKind<boolean>({
  type: 'nat',
  title: 'NAT',
  order: 70,
  paletteRank: 6,
  form: {
    read: (n) => loopback(n.properties),
    update: (n, f) => partBody({ properties: f === loopback(n.properties) ? null : { allow_host_loopback: f } }),
    fields: ['allow_host_loopback'],
  },
  Editor,
});
