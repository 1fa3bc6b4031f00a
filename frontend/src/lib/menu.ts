// Right-click menus: what a menu offers for a node, a link or the canvas,
// and where it opens. What a node may do (start, stop, a console) is the
// server's to say (GET /v2/node_types, lib/nodetypes.ts); this only picks
// the entries from it.

import { runnable } from './nodetypes';
import { webConsole } from './sideconsoles';
import type { Link, Node, NodeTypeInfo } from './types';
import type { XY } from './layout';

/** One entry of a menu. A separator is drawn above an entry with sep. */
export interface MenuEntry {
  id: string;
  label: string;
  disabled?: boolean;
  /** Why it is disabled, or what it does. */
  title?: string;
  danger?: boolean;
  sep?: boolean;
}

/** nodeEntries are the entries of a node's menu. Start, suspend, stop and
 * reload only for a type nodedesk runs; a console only where the node has
 * one nodedesk can reach (a type it does not run has none). */
export function nodeEntries(n: Node, info: NodeTypeInfo | undefined, opts: { lost?: string | null } = {}): MenuEntry[] {
  const lost = opts.lost ? `Not now: ${opts.lost}` : undefined;
  const out: MenuEntry[] = [];
  if (runnable(info)) {
    out.push(
      { id: 'start', label: 'Start', disabled: !!lost || n.status === 'started', title: lost },
      { id: 'suspend', label: 'Suspend', disabled: !!lost || n.status !== 'started', title: lost },
      { id: 'stop', label: 'Stop', disabled: !!lost || n.status === 'stopped', title: lost },
      { id: 'reload', label: 'Reload', disabled: !!lost || n.status === 'stopped', title: lost },
    );
  }
  if (consoleShown(n, info)) {
    const sep = out.length > 0;
    if (n.console_type === 'telnet' || n.console_type === 'vnc') {
      out.push({ id: 'console', label: n.console_type === 'vnc' ? 'Open VNC' : 'Open console', sep, disabled: !!lost, title: lost ?? (n.status === 'started' ? undefined : `The tab connects once ${n.name} is started`) });
    }
    if (webConsole(n) === null) {
      out.push({ id: 'terminal', label: 'Open in terminal', sep: sep && out[out.length - 1]?.id !== 'console', disabled: !!lost, title: lost });
    }
  }
  out.push(
    { id: 'configure', label: 'Configure…', sep: true },
    { id: 'duplicate', label: 'Duplicate' },
    { id: 'delete', label: 'Delete', danger: true, sep: true },
  );
  return out;
}

/** consoleShown says whether a node's console buttons are shown: it has a
 * console, and its type is one nodedesk runs (the server's node types say
 * runs: false for the emulators it keeps but does not run). */
export function consoleShown(n: Pick<Node, 'console' | 'console_type'>, info: NodeTypeInfo | undefined): boolean {
  return n.console_type !== null && n.console !== null && info?.runs !== false;
}

/** linkEntries are the entries of a link's menu. */
export function linkEntries(l: Link): MenuEntry[] {
  return [
    { id: 'suspend', label: l.suspend ? 'Resume traffic' : 'Suspend traffic' },
    { id: 'filters', label: 'Filters…' },
    { id: l.capturing ? 'capture-stop' : 'capture-start', label: l.capturing ? 'Stop capture' : 'Start capture', sep: true },
    { id: 'delete', label: 'Delete', danger: true, sep: true },
  ];
}

/** placeMenu puts a menu of size w×h at the pointer p, moved left or up
 * so that it stays whole inside a vw×vh window (margin px from its edges). */
export function placeMenu(p: XY, w: number, h: number, vw: number, vh: number, margin = 4): XY {
  const x = p.x + w + margin > vw ? Math.max(margin, vw - w - margin) : p.x;
  const y = p.y + h + margin > vh ? Math.max(margin, vh - h - margin) : p.y;
  return { x, y };
}

/** nextEnabled answers the index of the next enabled entry from i in the
 * direction dir (wrapping), or -1 when none is enabled. */
export function nextEnabled(entries: readonly Pick<MenuEntry, 'disabled'>[], i: number, dir: 1 | -1): number {
  const n = entries.length;
  for (let k = 1; k <= n; k++) {
    const j = (((i + dir * k) % n) + n) % n;
    if (!entries[j].disabled) return j;
  }
  return -1;
}
