// IOU devices: the registry's entry (its name only: the panel edits
// nothing of its own).

import { defineKind } from '../kind';

export default defineKind({ type: 'iou', title: 'IOU device', order: 110 });
