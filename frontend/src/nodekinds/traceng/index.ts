// TraceNG hosts: the registry's entry (its name only: the panel edits
// nothing of its own).

import { defineKind } from '../kind';

export default defineKind({ type: 'traceng', title: 'TraceNG host', order: 120 });
