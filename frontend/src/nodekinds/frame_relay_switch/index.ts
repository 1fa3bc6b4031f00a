// Frame Relay switches: the registry's entry. Its panel edits the
// circuits, one row per DLCI mapping (model.ts).

import { mappingsToRows, rowsToMappings, type FrRow } from './model';
import { partBody, same } from '../helpers';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

export default defineKind<FrRow[]>({
  type: 'frame_relay_switch',
  title: 'Frame Relay switch',
  order: 40,
  paletteRank: 3,
  form: {
    read: (n) => mappingsToRows(n.properties?.mappings),
    update: (n, f) => {
      const r = rowsToMappings(f);
      if (!r.ok) return { ok: false, field: 'mappings', row: r.row, message: r.message };
      const before = rowsToMappings(mappingsToRows(n.properties?.mappings));
      return partBody({ properties: before.ok && same(r.mappings, before.mappings) ? null : { mappings: r.mappings } });
    },
    fields: ['mappings'],
  },
  Editor,
});
