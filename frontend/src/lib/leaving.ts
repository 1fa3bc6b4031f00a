// Asking before losing a running lab. Closing a project stops its nodes
// (the server's close does); closing the window or quitting ends nodedesk,
// which stops every node; closing the last browser tab closes the
// auto_close projects 5 s later (decision 0069), unless the window or
// another tab is open. Each asks first while nodes run.

import { get } from 'svelte/store';
import * as api from './api';
import { runnable } from './nodetypes';
import { confirm } from './stores/dialogs';
import { nodeTypes } from './stores/nodetypes';
import { nodeList } from './stores/nodes';
import { closeProject, currentId, projects } from './stores/projects';
import type { Node } from './types';

/** running is how many of nodes run a process (started or suspended). */
export function running(nodes: readonly Node[]): number {
  const types = get(nodeTypes);
  return nodes.filter((n) => n.status !== 'stopped' && runnable(types.get(n.node_type)) === true).length;
}

const many = (n: number) => (n === 1 ? '1 node is' : `${n} nodes are`);

/** closeAsking closes a project, asking first if nodes run in it. */
export async function closeAsking(id: string): Promise<void> {
  const p = get(projects).find((x) => x.project_id === id);
  const nodes = get(currentId) === id ? get(nodeList) : await api.listNodes(id);
  const n = running(nodes);
  if (n > 0) {
    const ok = await confirm({
      title: 'Close the project?',
      message: `${many(n)} running in ${p?.name ?? 'this project'}. Closing it stops them: what they hold in memory and have not saved is lost.`,
      confirmLabel: 'Stop and close',
      danger: true,
    });
    if (!ok) return;
  }
  await closeProject(id);
}

/** runningEverywhere is the running nodes of every opened project, by
 * project name (the window's close and quit stop them all). */
export async function runningEverywhere(): Promise<{ name: string; count: number }[]> {
  const open = get(projects).filter((p) => p.status === 'opened');
  const counts = await Promise.all(open.map(async (p) => ({
    name: p.name,
    count: running(get(currentId) === p.project_id ? get(nodeList) : await api.listNodes(p.project_id).catch(() => [])),
  })));
  return counts.filter((c) => c.count > 0);
}

/** quitQuestion is what the window asks before it closes, or null when
 * no node runs. */
export function quitQuestion(labs: { name: string; count: number }[]): string | null {
  if (labs.length === 0) return null;
  const total = labs.reduce((s, l) => s + l.count, 0);
  const where = labs.length === 1 ? labs[0].name : `${labs.length} projects (${labs.map((l) => l.name).join(', ')})`;
  return `${many(total)} running in ${where}. Quitting nodedesk stops them: what they hold in memory and have not saved is lost.`;
}

/** guardTab asks the browser to confirm leaving the page while nodes of
 * the shown project run (the browser words the question itself). It
 * returns the listener's removal. */
export function guardTab(): () => void {
  const onLeave = (e: BeforeUnloadEvent) => {
    if (running(get(nodeList)) === 0) return;
    e.preventDefault();
    e.returnValue = ''; // older engines ask only with it set
  };
  addEventListener('beforeunload', onLeave);
  return () => removeEventListener('beforeunload', onLeave);
}

/** guardLeaving asks before the page's own end loses a running lab: in
 * the window, before it closes (every opened project's nodes); in a
 * browser tab, before it is left (the shown project's). It returns the
 * function that stops. */
export function guardLeaving(): () => void {
  const off = api.windowCloses(() => {
    void (async () => {
      const q = quitQuestion(await runningEverywhere().catch(() => []));
      if (q && !(await confirm({ title: 'Quit nodedesk?', message: q, confirmLabel: 'Stop and quit', danger: true }))) return;
      await api.quitWindow();
    })();
  });
  return off ?? guardTab();
}
