// What differs between node types, as the server says it (GET
// /v2/node_types), loaded once at start-up.

import { writable } from 'svelte/store';
import * as api from '../api';
import type { NodeType, NodeTypeInfo } from '../types';

/** Each node type's console types and lifecycle; empty until loaded. */
export const nodeTypes = writable<ReadonlyMap<NodeType, NodeTypeInfo>>(new Map());
/** Why the node types could not be loaded, or null. */
export const nodeTypesError = writable<string | null>(null);

export function setNodeTypes(list: readonly NodeTypeInfo[]): void {
  nodeTypes.set(new Map(list.map((t) => [t.node_type, t])));
}

/** loadNodeTypes asks the server what differs between node types. */
export async function loadNodeTypes(): Promise<void> {
  try {
    setNodeTypes(await api.listNodeTypes());
    nodeTypesError.set(null);
  } catch (err) {
    nodeTypesError.set(api.toAppError(err).message);
  }
}
