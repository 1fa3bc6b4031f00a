// ATM switches: the registry's entry (its name only: the panel edits
// nothing of its own).

import { defineKind } from '../kind';

export default defineKind({ type: 'atm_switch', title: 'ATM switch', order: 50, paletteRank: 4 });
