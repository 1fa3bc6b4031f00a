// The project shown: loads its nodes, links and drawings and follows its events.

import { get, writable } from 'svelte/store';
import * as api from '../api';
import { assertNever } from '../assert';
import type { LiveEvent, LiveState } from '../types';
import { removeDrawing, setDrawings, upsertDrawing } from './drawings';
import { removeLink, setLinks, upsertLink } from './links';
import { removeNode, setNodes, upsertNode } from './nodes';
import { applyHistoryEvent, followHistory, reloadHistory } from './history';
import { applyCheckRunEvent, followChecks, lintSoon, reloadLint, reloadRun } from './checks';
import { clearSelection, selectNodes } from './selection';
import { togglePanel } from './panels';
import { waitingPorts } from '../../nodekinds/cloud/model';
import type { Node } from '../types';
import { notify, whenGone } from './notices';

export type TopologyState = 'idle' | 'loading' | 'ready' | { error: string };
export const topologyState = writable<TopologyState>('idle');
/** Whether live events are arriving (or the stream is reconnecting). */
export const liveState = writable<LiveState>('live');

let stop: (() => void) | null = null;
let shown: string | null = null;

/** applyTopologyEvent folds a node, link or drawing event into the stores. */
export function applyTopologyEvent(e: LiveEvent): void {
  // A change to nodes or links may change what lint finds: read it again
  // once changes pause.
  if (e.action.startsWith('node.') || e.action.startsWith('link.')) lintSoon();
  switch (e.action) {
    case 'node.created':
    case 'node.updated':
      upsertNode(e.event);
      return;
    case 'node.deleted':
      removeNode(e.event.node_id);
      return;
    case 'link.created':
    case 'link.updated':
      upsertLink(e.event);
      return;
    case 'link.deleted':
      removeLink(e.event.link_id);
      return;
    case 'drawing.created':
    case 'drawing.updated':
      upsertDrawing(e.event);
      return;
    case 'drawing.deleted':
      removeDrawing(e.event.drawing_id);
      return;
    case 'history.updated':
      applyHistoryEvent(e.event);
      return;
    case 'check.run.updated':
      applyCheckRunEvent(e.event);
      return;
    case 'log.error':
    case 'log.warning':
    case 'log.info': // a remote compute's sentence for the user
      if (typeof e.event?.message === 'string' && e.event.message) {
        const detail = typeof e.event.detail === 'string' ? e.event.detail : undefined;
        notify(e.action === 'log.error' ? 'error' : 'info', e.event.message, undefined, undefined, detail);
      }
      return;
    case 'resync':
      if (shown) {
        void reload(shown);
        void reloadHistory(shown);
        void reloadRun(shown);
        void reloadLint(shown);
      }
      return;
    case 'project.created': case 'project.updated': case 'project.deleted':
    case 'project.opened': case 'project.closed':
    case 'compute.created': case 'compute.updated': case 'compute.deleted':
    case 'template.created': case 'template.updated': case 'template.deleted':
      return;
    default:
      assertNever(e, 'event');
  }
}

async function reload(pid: string): Promise<void> {
  try {
    // The lists land together, so that the canvas draws the topology once.
    const [ns, ls, ds] = await Promise.all([api.listNodes(pid), api.listLinks(pid), api.listDrawings(pid)]);
    if (shown !== pid) return; // another project is shown meanwhile
    setNodes(ns);
    setLinks(ls);
    setDrawings(ds);
    const first = get(topologyState) !== 'ready';
    topologyState.set('ready');
    if (first) tellWaiting(ns);
  } catch (err) {
    if (shown === pid) topologyState.set({ error: api.toAppError(err).message });
  }
}

/** tellWaiting says, once a project is shown, which cloud ports from its
 * project file carry nothing until the user allows them (the server lists
 * them in ports_waiting; a host interface this machine lacks is refused
 * when allowed, with the reason, in the node's panel). */
function tellWaiting(ns: readonly Node[]): void {
  const waiting = ns.filter((n) => waitingPorts(n).length > 0);
  if (waiting.length === 0) return;
  const [n] = waiting;
  const what = waiting.map((w) => `${w.name} (${waitingPorts(w).join(', ')})`).join(', ');
  notify('info', `Host ports from the project file carry nothing until you allow them: ${what}. Check each one's interface in its panel.`, 12000, {
    label: `Show ${n.name}`,
    run: () => {
      togglePanel('inspector', true);
      selectNodes([n.node_id]);
    },
  });
}

/** showProject switches the topology to project pid (null: none). */
export function showProject(pid: string | null): void {
  if (pid === shown) return;
  stop?.();
  stop = null;
  shown = pid;
  setNodes([]);
  setLinks([]);
  setDrawings([]);
  clearSelection();
  followHistory(pid);
  followChecks(pid);
  if (pid === null) {
    topologyState.set('idle');
    return;
  }
  topologyState.set('loading');
  stop = api.subscribe(pid, applyTopologyEvent, (s) => liveState.set(s));
  void reload(pid);
}

/** retry reloads the shown project (after an error, or when something
 * turned out to be gone); a loaded canvas stays up meanwhile. */
export function retry(): void {
  if (!shown) return;
  if (typeof get(topologyState) === 'object') topologyState.set('loading');
  void reload(shown);
}

// A failure that says a thing is gone reloads the project shown.
whenGone(retry);
