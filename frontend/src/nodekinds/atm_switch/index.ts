// ATM switches: the registry's entry. Its panel edits the connections,
// one row per VPI/VCI mapping (model.ts).

import { mappingsToRows, rowsToMappings, type AtmRow } from './model';
import { mappingsForm } from '../mappings';
import { defineKind } from '../kind';
import Editor from './Editor.svelte';

export default defineKind<AtmRow[]>({
  type: 'atm_switch',
  title: 'ATM switch',
  order: 50,
  paletteRank: 4,
  form: mappingsForm(mappingsToRows, rowsToMappings),
  Editor,
});
