// How much the canvas draws. Zoomed far out, names and port labels are too
// small to read (12 px at 0.5 is 6 px): nodes are drawn as bare tiles and
// links by one path (LinkLayer) instead of an edge each, so that a project
// of 1,000 nodes opens and drags quickly. The canvas sets it, nodes read it.

import { createContext } from 'svelte';

/** Below this zoom the canvas is "far". */
export const FAR_ZOOM = 0.5;

export interface Detail {
  readonly far: boolean;
  /** Far out, the nodes whose name is drawn (the others' names would
   * overlap; they show on hover and when selected). */
  readonly names: ReadonlySet<string>;
  /** The node under the pointer, whose name shows whatever the room. */
  readonly hovered: string | null;
}

export const [getDetail, setDetail] = createContext<Detail>();
