// The one context menu of the page: what it shows and where. The canvas
// opens it (a right-click, or the context-menu key); ContextMenu draws it.

import { writable } from 'svelte/store';
import type { XY } from '../layout';
import type { MenuEntry } from '../menu';

/** A menu entry with what it does. */
export interface MenuItem extends MenuEntry { run: () => void }

export interface OpenMenu {
  /** Where the pointer was, in window pixels. */
  at: XY;
  /** What the menu is about, for its accessible name and tests. */
  kind: 'node' | 'link' | 'canvas' | 'template';
  label: string;
  items: MenuItem[];
}

export const contextMenu = writable<OpenMenu | null>(null);

export function openMenu(m: OpenMenu): void {
  contextMenu.set(m);
}

export function closeMenu(): void {
  contextMenu.set(null);
}
