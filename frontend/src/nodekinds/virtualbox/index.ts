// VirtualBox VMs: the registry's entry (its name only: the panel edits
// nothing of its own).

import { defineKind } from '../kind';

export default defineKind({ type: 'virtualbox', title: 'VirtualBox VM', order: 130 });
