// VPCS hosts: the registry's entry. Its panel edits the startup script.

import { partBody } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

const script = (p: Record<string, unknown> | undefined) => (typeof p?.startup_script === 'string' ? p.startup_script : '');

export default defineKind<string>({
  type: 'vpcs',
  title: 'VPCS host',
  order: 10,
  paletteRank: 0,
  form: {
    read: (n) => script(n.properties),
    update: (n, f) => partBody({ properties: f === script(n.properties) ? null : { startup_script: f } }),
    fields: ['startup_script'],
  },
  Editor,
});
