// What the entries of a node's and a link's context menu do: the same
// commands as the panels' buttons (stores/commands.ts, stores/links.ts).

import { get } from 'svelte/store';
import { tick } from 'svelte';
import { linkEntries, nodeEntries, type MenuEntry } from '../menu';
import { captureFormats } from '../linkstate';
import { nodeUnreachable } from '../computes';
import type { DataLinkType, Link, Node } from '../types';
import type { XY } from '../layout';
import { actOn, deleteSelection, duplicate, openConsole, openConsoles } from './commands';
import { computeMap } from './computes';
import { consoleCommand } from './dialogs';
import { deleteLink, saveLink, startCapture, stopCapture } from './links';
import { openMenu, type MenuItem } from './menu';
import { nodes } from './nodes';
import { nodeTypes } from './nodetypes';
import { failed, notify } from './notices';
import { togglePanel } from './panels';
import { clearSelection, selectLink, selectNodes } from './selection';

const withRun = (entries: MenuEntry[], run: (id: string) => void): MenuItem[] => entries.map((e) => ({ ...e, run: () => run(e.id) }));

/** showInPanel opens the properties panel and scrolls to (and focuses the
 * first field of) the part named by selector. */
async function showInPanel(selector: string): Promise<void> {
  togglePanel('inspector', true);
  await tick();
  requestAnimationFrame(() => {
    const el = document.querySelector<HTMLElement>(selector);
    el?.scrollIntoView({ block: 'nearest' });
    el?.querySelector<HTMLElement>('input, select, textarea, button')?.focus();
  });
}

/** openNodeMenu opens the menu of node n at the pointer. */
export function openNodeMenu(pid: string, n: Node, at: XY): void {
  const entries = nodeEntries(n, get(nodeTypes).get(n.node_type), { lost: nodeUnreachable(n, get(computeMap)) });
  const run = (id: string) => {
    switch (id) {
      case 'start': case 'stop': case 'suspend': case 'reload':
        void actOn(pid, [n.node_id], id);
        return;
      case 'console':
        openConsoles([n.node_id]);
        return;
      case 'terminal':
        void openConsole(pid, n.node_id).then((r) => {
          if (r?.kind === 'command') consoleCommand.set({ name: n.name, command: r.command, reason: r.reason });
          else if (r?.kind === 'opened') notify('info', `Opened the console of ${n.name} in a terminal`);
        });
        return;
      case 'configure':
        selectNodes([n.node_id]);
        void showInPanel('[data-testid="node-panel"] form, [data-testid="node-panel"]');
        return;
      case 'duplicate':
        void duplicate(pid, [n.node_id]);
        return;
      case 'delete':
        clearSelection();
        selectNodes([n.node_id]);
        void deleteSelection(pid);
        return;
    }
  };
  openMenu({ at, kind: 'node', label: n.name, items: withRun(entries, run) });
}

/** openLinkMenu opens the menu of link l at the pointer. */
export function openLinkMenu(pid: string, l: Link, at: XY): void {
  const all = get(nodes);
  const label = l.nodes.map((e) => all.get(e.node_id)?.name ?? '?').join(' — ');
  const run = async (id: string) => {
    try {
      switch (id) {
        case 'suspend': {
          const r = await saveLink(pid, l.link_id, { suspend: !l.suspend });
          notify('success', r.suspend ? 'Suspended the link: no traffic crosses it' : 'Resumed the link');
          return;
        }
        case 'filters':
          selectLink(l.link_id);
          await showInPanel('[data-testid="link-filters"]');
          return;
        case 'capture-start': {
          const dlt = captureFormats(l, all)[0]?.dlt;
          const r = await startCapture(pid, l.link_id, dlt ? { data_link_type: dlt as DataLinkType } : {});
          notify('success', `Capturing to ${r.capture_file_name}`);
          return;
        }
        case 'capture-stop': {
          const r = await stopCapture(pid, l.link_id);
          notify('success', `Stopped the capture; ${r.capture_file_name ?? 'the file'} stays in the project's captures folder`);
          return;
        }
        case 'delete':
          await deleteLink(pid, l.link_id);
          clearSelection();
          notify('success', 'Deleted the link');
          return;
      }
    } catch (err) {
      failed(`Could not ${id === 'delete' ? 'delete' : 'change'} the link`, err);
    }
  };
  openMenu({ at, kind: 'link', label, items: withRun(linkEntries(l), (id) => void run(id)) });
}
