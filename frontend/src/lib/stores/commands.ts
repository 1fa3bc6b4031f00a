// What the toolbar, the panels and the keyboard do to the selection and
// the project, with a notice saying how it went.

import { get } from 'svelte/store';
import * as api from '../api';
import type { ConsoleResult } from '../api';
import type { NodeAction } from '../types';
import { deleteDrawing } from './drawings';
import { deleteLink } from './links';
import { actOnNodes, deleteNodes, nodes } from './nodes';
import { duplicateNodes } from './clipboard';
import { gesture } from '../gesture';
import { failed, notify } from './notices';
import { clearSelection, selectDrawings, selectNodes, selectedDrawings, selectedLink, selectedNodes } from './selection';
import { nodeView, openConsoleTab } from './consoles';

const PAST: Record<NodeAction, string> = { start: 'Started', stop: 'Stopped', suspend: 'Suspended', reload: 'Reloaded' };

function names(ids: readonly string[]): string {
  const all = get(nodes);
  const ns = ids.map((id) => all.get(id)?.name ?? 'a node');
  return ns.length <= 2 ? ns.join(' and ') : `${ns[0]} and ${ns.length - 1} more`;
}

/** deleteDrawings deletes drawings; one the server keeps (a locked one: 409)
 * stays selected, and its error is the notice. */
export async function deleteDrawings(pid: string, ids: readonly string[]): Promise<void> {
  const results = await Promise.allSettled(ids.map((id) => deleteDrawing(pid, id)));
  const kept = ids.filter((_, i) => results[i].status === 'rejected');
  const errors = results.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
  selectDrawings(kept);
  if (errors.length > 0) failed(ids.length === 1 ? 'Could not delete the drawing' : `Could not delete ${errors.length} of ${ids.length} drawings`, errors[0]);
  else notify('success', ids.length === 1 ? 'Deleted the drawing' : `Deleted ${ids.length} drawings`);
}

/** deleteSelection deletes the selected nodes (their links go with them on
 * the server) and drawings, or the selected link, as one change. */
export async function deleteSelection(pid: string): Promise<void> {
  const ids = [...get(selectedNodes)];
  const link = get(selectedLink);
  const drawn = [...get(selectedDrawings)];
  const g = gesture(); // one change of the history, however many requests
  if (drawn.length > 0) await g(() => deleteDrawings(pid, drawn));
  if (ids.length > 0) {
    const label = names(ids);
    const errors = await g(() => deleteNodes(pid, ids));
    selectNodes([]);
    if (errors.length > 0) failed(`Could not delete ${errors.length === ids.length ? label : 'some nodes'}`, errors[0]);
    else notify('success', `Deleted ${label}`);
  } else if (link) {
    try {
      await deleteLink(pid, link);
      clearSelection();
      notify('success', 'Deleted the link');
    } catch (err) {
      failed('Could not delete the link', err);
    }
  }
}

export async function actOn(pid: string, ids: readonly string[], action: NodeAction): Promise<void> {
  if (ids.length === 0) return;
  const label = names(ids);
  const errors = await actOnNodes(pid, ids, action);
  if (errors.length > 0) failed(`Could not ${action} ${errors.length === ids.length ? label : 'some nodes'}`, errors[0]);
  else notify('success', `${PAST[action]} ${label}`);
}

export async function actOnProject(pid: string, action: NodeAction): Promise<void> {
  try {
    await api.projectAction(pid, action);
    notify('success', `${PAST[action]} every node`);
  } catch (err) {
    failed(`Could not ${action} every node`, err);
  }
}

/** duplicate copies nodes beside themselves with the links between
 * them, as one change; the copies become the selection. */
export const duplicate = (pid: string, ids: readonly string[]): Promise<void> => duplicateNodes(pid, ids);

/** openConsole opens the node's console, or answers the command to type. */
export async function openConsole(pid: string, nid: string): Promise<ConsoleResult | null> {
  try {
    return await api.openConsole(pid, nid);
  } catch (err) {
    failed('Could not open the console', err);
    return null;
  }
}

/** openConsoles opens a console tab for each of the nodes that has a
 * console the page shows — telnet, or VNC in a browser — (a stopped one's
 * tab connects when it starts); the last one opened is shown. */
export function openConsoles(ids: readonly string[]): void {
  const all = get(nodes);
  const ok = ids.filter((id) => nodeView(all.get(id))?.console);
  if (ok.length === 0) {
    const why = ids.length === 1 ? nodeView(all.get(ids[0]))?.why : undefined;
    const one = why ? `${names(ids)}: ${why}` : `${names(ids)} has no telnet or VNC console`;
    if (ids.length > 0) notify('info', ids.length === 1 ? one : 'None of these nodes has a telnet or VNC console');
    return;
  }
  for (const id of ok) openConsoleTab(id);
}

/** consoleToAll opens a console tab for every started node with a telnet
 * console, as GNS3's "Console to all" does. */
export function consoleToAll(): void {
  const started = [...get(nodes).values()].filter((n) => n.status === 'started' && nodeView(n)?.console === 'telnet');
  if (started.length === 0) {
    notify('info', 'No started node has a telnet console; start some first');
    return;
  }
  for (const n of started) openConsoleTab(n.node_id, { focus: false });
  openConsoleTab(started[0].node_id);
}
