// What differs between node types, as the server says it (GET
// /v2/node_types), loaded once at start-up.

import { writable } from 'svelte/store';
import * as api from '../api';
import { notify } from './notices';
import type { NodeType, NodeTypeInfo } from '../types';

/** Each node type's console types and lifecycle; empty until loaded. */
export const nodeTypes = writable<ReadonlyMap<NodeType, NodeTypeInfo>>(new Map());
function setNodeTypes(list: readonly NodeTypeInfo[]): void {
  nodeTypes.set(new Map(list.map((t) => [t.node_type, t])));
}

/** loadNodeTypes asks the server what differs between node types. */
export async function loadNodeTypes(): Promise<void> {
  try {
    setNodeTypes(await api.listNodeTypes());
  } catch (err) {
    const e = api.toAppError(err);
    notify('error', 'Part of the page could not be loaded, so console choices and Start/Stop are hidden. Reload the page (F5) once nodedesk answers.', undefined, undefined, e.detail ? `${e.message} ${e.detail}` : e.message);
  }
}
