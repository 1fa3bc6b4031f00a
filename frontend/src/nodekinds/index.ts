// The node-type registry: one entry per node type, each in its own
// folder (<type>/index.ts; kind.ts says what an entry holds). Whatever
// differs between node types in the page is asked of it, by a node's
// node_type; no view or form tests a type itself.

import type { NodeType } from '../lib/types';
import type { NodeKind } from './kind';

const entries = import.meta.glob<NodeKind>('./*/index.ts', { eager: true, import: 'default' });

/** Every entry, in the registry's order. */
export const kinds: readonly NodeKind[] = Object.values(entries).sort((a, b) => a.order - b.order);
const byType = new Map<string, NodeKind>(kinds.map((k) => [k.type, k]));

/** findKind is the entry of a node type, or undefined for a type this
 * page does not know (a newer server's). */
export const findKind = (t: string): NodeKind | undefined => byType.get(t);

/** kindOf is the entry of a node type; for a type this page does not
 * know (a newer server's), a bare one named by the type: no form, no
 * editor, no template, last in order, so the node still shows. */
export function kindOf(t: NodeType | string): NodeKind {
  return byType.get(t) ?? { type: t as NodeType, title: t, order: Infinity };
}

/** The entries whose templates the palette makes, in its order. */
export const templateKinds: readonly NodeKind[] = kinds.filter((k) => k.template);

/** The entries with a section in the settings dialog, in the registry's order. */
export const settingsKinds: readonly NodeKind[] = kinds.filter((k) => k.settings);

/** paletteRank is a built-in device's place at the top of the palette,
 * by its type: its entry's paletteRank, Infinity for the others. */
export const paletteRank = (t: string): number => findKind(t)?.paletteRank ?? Infinity;
