// Frame Relay switches: the registry's entry. Its panel edits the
// circuits, one row per DLCI mapping (model.ts).

import { mappingsToRows, rowsToMappings, type FrRow } from './model';
import { mappingsForm } from '../mappings';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

export default defineKind<FrRow[]>({
  type: 'frame_relay_switch',
  title: 'Frame Relay switch',
  order: 40,
  paletteRank: 3,
  form: mappingsForm(mappingsToRows, rowsToMappings),
  Editor,
});
