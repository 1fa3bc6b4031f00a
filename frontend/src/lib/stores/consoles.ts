// The console tabs of the project shown: one per node, each with its link
// to the node's console — a terminal's (consolelink.ts, over the page's
// door) or, for a VNC console, the guest's screen (vnclink.ts) — and the
// machine that decides when to connect (consoletabs.ts). The tabs follow
// their nodes' live status: a tab says when its node stops and reconnects
// by itself when it starts again. A node whose console_auto_start is set
// gets a tab when it starts. A node with an aux console (a Docker
// container's shell) may have a second tab, "Aux": a terminal on its aux
// console, which connects and reconnects as a console tab does. The tabs
// a project had open come back after a reload (savedtabs.ts): each is
// reopened once its node is known, and reconnects as any tab does.

import { get, writable } from 'svelte/store';
import * as api from '../api';
import { initial, step, tabLabel, type NodeView, type TabEffect, type TabEvent, type TabKind, type TabMachine, type TabPhase } from '../consoletabs';
import { WINDOW_NO_VNC } from '../vnclink';
import { auxNodeView, webConsole } from '../sideconsoles';
import { loadTabs, saveTabs, type SavedTab } from '../savedtabs';
import type { Node } from '../types';
import { nodes } from './nodes';

/** A console tab as the views see it. */
export interface ConsoleTab {
  /** The tab's key: its node's id, or auxKey(id) for its aux tab. */
  key: string;
  nid: string;
  /** What the tab shows: a terminal, a screen, a terminal on the aux
   * console (always 'aux' for an aux tab), or (no console) none of them. */
  kind: TabKind | null;
  phase: TabPhase;
  label: string;
  note: string;
}

/** Where a tab's output goes: its terminal, once mounted. */
export interface ConsoleSink {
  write(bytes: Uint8Array): void;
  /** note writes a line of the page's own (dim) into the terminal. */
  note(text: string): void;
}

/** How much output waits for a terminal that is not mounted yet. */
const BACKLOG = 1 << 20;

/** A tab's open link: a terminal's (send) or a screen's (focus). */
interface Link {
  send?(data: string): void;
  focus?(): void;
  close(): void;
}

interface Ctl {
  key: string;
  nid: string;
  /** An aux tab: its link is to the node's aux console. */
  aux: boolean;
  m: TabMachine;
  link: Link | null;
  /** The element a VNC tab's screen is drawn in, made on first use; the
   * dock shows it (attachScreen). */
  screen: HTMLElement | null;
  /** Counts connection attempts, so that a late answer of an old one is ignored. */
  gen: number;
  timer: ReturnType<typeof setTimeout> | null;
  sink: ConsoleSink | null;
  backlog: Uint8Array[];
  backlogSize: number;
  /** Whether the tab was connected before (a new connection is a reconnection). */
  wasConnected: boolean;
}

export const consoleTabs = writable<ConsoleTab[]>([]);
/** The key of the tab shown (a node's id, or auxKey of it). */
export const activeConsole = writable<string | null>(null);
/** Bumped to ask the active tab's terminal for the keyboard focus. */
export const focusConsole = writable(0);

const tabs = new Map<string, Ctl>();
let pid: string | null = null;
/** The kept tabs of the project not reopened yet (their node not known
 * yet), and the key of the one that was shown. */
let pending: SavedTab[] = [];
let pendingActive: string | null = null;

/** persist keeps the project's tabs for the next load of the page. */
function persist(): void {
  if (pid === null) return;
  const list: SavedTab[] = [...[...tabs.values()].map((c) => ({ nid: c.nid, aux: c.aux })), ...pending];
  const keys = list.map((t) => (t.aux ? auxKey(t.nid) : t.nid));
  const cur = pendingActive ?? get(activeConsole);
  const i = cur === null ? -1 : keys.indexOf(cur);
  try {
    saveTabs(localStorage, pid, { tabs: list, active: i >= 0 ? i : null });
  } catch {
    // No localStorage here (tests): the tabs are not kept.
  }
}

/** restore reopens the kept tabs whose node m now holds. */
function restore(m: ReadonlyMap<string, Node>): void {
  if (pending.length === 0) return;
  const now = pending.filter((t) => m.has(t.nid));
  if (now.length === 0) return;
  pending = pending.filter((t) => !m.has(t.nid));
  const shown = get(activeConsole);
  for (const t of now) openTab(t.nid, t.aux, { focus: false, keep: false });
  const want = pendingActive !== null && tabs.has(pendingActive) ? pendingActive : shown;
  if (want !== null && tabs.has(want)) activeConsole.set(want);
  if (pendingActive !== null && tabs.has(pendingActive)) pendingActive = null;
  if (pending.length === 0) pendingActive = null;
}

/** auxKey is the key of node nid's aux tab. */
export const auxKey = (nid: string): string => `${nid}:aux`;

function view(c: Ctl): ConsoleTab {
  const kind = c.aux ? 'aux' : c.m.node?.console ?? null;
  return { key: c.key, nid: c.nid, kind, phase: c.m.phase, label: tabLabel(c.m), note: c.m.note };
}

function publish(): void {
  consoleTabs.set([...tabs.values()].map(view));
}

/** nodeView is what a tab's machine knows of a node: its console, when
 * the page can show it (a VNC screen needs the API's websocket, which the
 * window's page cannot open). */
export function nodeView(n: Node | undefined): NodeView | null {
  if (!n) return null;
  if (n.console === null) return { status: n.status, console: null };
  if (n.console_type === 'telnet') return { status: n.status, console: 'telnet' };
  if (n.console_type === 'vnc') {
    return api.transport() === 'window' ? { status: n.status, console: null, why: WINDOW_NO_VNC } : { status: n.status, console: 'vnc' };
  }
  if (webConsole(n) !== null) return { status: n.status, console: null, why: `its console is a web page: open it with Open in browser in its panel` };
  return { status: n.status, console: null };
}

/** tabNodeView is what tab c's machine knows of node n: its aux console
 * for an aux tab, its console otherwise. */
function tabNodeView(c: Ctl, n: Node | undefined): NodeView | null {
  return c.aux ? auxNodeView(n) : nodeView(n);
}

/** screenOf is the element a VNC tab draws in. */
function screenOf(c: Ctl): HTMLElement {
  if (!c.screen) {
    c.screen = document.createElement('div');
    c.screen.className = 'vnc-screen';
    c.screen.dataset.testid = 'vnc-screen';
  }
  return c.screen;
}

function output(c: Ctl, bytes: Uint8Array): void {
  if (c.sink) return c.sink.write(bytes);
  if (c.backlogSize + bytes.length > BACKLOG) return; // nobody reads it yet: the oldest is kept
  c.backlog.push(bytes);
  c.backlogSize += bytes.length;
}

function note(c: Ctl, text: string): void {
  if (c.sink) c.sink.note(text);
}

function dispatch(c: Ctl, e: TabEvent): void {
  if (tabs.get(c.key) !== c) return; // closed meanwhile
  const before = c.m;
  const { next, effects } = step(c.m, e);
  c.m = next;
  for (const f of effects) run(c, f);
  if (before.phase === 'connected' && next.phase !== 'connected') {
    const name = get(nodes).get(c.nid)?.name ?? 'the node';
    note(c, next.phase === 'retrying' ? `${name}: connection lost (${next.note}); reconnecting…` : `${name} ${next.note}; the ${c.aux ? 'aux console' : 'console'} reconnects when it starts`);
  }
  if (before.phase !== 'connected' && next.phase === 'connected') {
    if (c.wasConnected) note(c, 'reconnected');
    c.wasConnected = true;
  }
  if (before !== next) publish();
}

function run(c: Ctl, f: TabEffect): void {
  switch (f.kind) {
    case 'disconnect':
      c.gen++;
      c.link?.close();
      c.link = null;
      return;
    case 'schedule':
      if (c.timer !== null) clearTimeout(c.timer);
      c.timer = setTimeout(() => {
        c.timer = null;
        dispatch(c, { kind: 'retry' });
      }, f.ms);
      return;
    case 'connect': {
      if (c.timer !== null) clearTimeout(c.timer);
      c.timer = null;
      c.link?.close();
      c.link = null;
      const gen = ++c.gen;
      const p = pid;
      if (p === null) return;
      const onClose = (reason: string) => {
        if (c.gen !== gen) return;
        c.link = null;
        dispatch(c, { kind: 'dropped', reason });
      };
      const terminal = {
        onData: (b: Uint8Array) => {
          if (c.gen === gen) output(c, b);
        },
        onClose,
      };
      const opening: Promise<Link> = c.aux
        ? api.auxLink(p, c.nid, terminal)
        : c.m.node?.console === 'vnc'
          ? api.vncLink(p, c.nid, screenOf(c), { onClose })
          : api.consoleLink(p, c.nid, terminal);
      opening
        .then(
          (link) => {
            if (c.gen !== gen || tabs.get(c.key) !== c) return link.close();
            c.link = link;
            dispatch(c, { kind: 'opened' });
          },
          (err: unknown) => {
            if (c.gen !== gen) return;
            dispatch(c, { kind: 'failed', message: api.toAppError(err).message });
          },
        );
      return;
    }
  }
}

let stopFollowing: (() => void) | null = null;

/** followConsoles keeps the tabs of project p in step with its nodes, and
 * opens the tab of a node whose console_auto_start is set when it starts.
 * Returns the function that closes every tab and stops. */
export function followConsoles(p: string): () => void {
  dropAll();
  stopFollowing?.();
  pid = p;
  let kept = { tabs: [] as SavedTab[], active: null as number | null };
  try {
    kept = loadTabs(localStorage, p);
  } catch {
    // No localStorage here (tests).
  }
  pending = kept.tabs;
  const a = kept.active === null ? null : kept.tabs[kept.active];
  pendingActive = a ? (a.aux ? auxKey(a.nid) : a.nid) : null;
  const seen = new Map<string, Node['status']>();
  const unsub = nodes.subscribe((m) => {
    restore(m);
    for (const c of [...tabs.values()]) {
      const v = tabNodeView(c, m.get(c.nid));
      const cur = c.m.node;
      if (v === null ? cur !== null : cur === null || v.status !== cur.status || v.console !== cur.console) {
        dispatch(c, { kind: 'node', node: v });
      }
    }
    for (const n of m.values()) {
      const was = seen.get(n.node_id);
      if (was !== undefined && was !== 'started' && n.status === 'started' && n.console_auto_start && !tabs.has(n.node_id)) {
        openConsoleTab(n.node_id, { focus: false });
      }
      seen.set(n.node_id, n.status);
    }
  });
  const stop = () => {
    unsub();
    dropAll();
    if (stopFollowing === stop) {
      stopFollowing = null;
      pid = null;
    }
  };
  stopFollowing = stop;
  return stop;
}

const newCtl = (nid: string, aux: boolean): Ctl => ({
  key: aux ? auxKey(nid) : nid, nid, aux, m: initial(), link: null, screen: null, gen: 0, timer: null, sink: null,
  backlog: [], backlogSize: 0, wasConnected: false,
});

/** openTab opens node nid's console tab, or its aux tab (or shows it,
 * when open), and makes it the active one. */
function openTab(nid: string, aux: boolean, opts: { focus?: boolean; keep?: boolean }): void {
  const key = aux ? auxKey(nid) : nid;
  let c = tabs.get(key);
  if (!c) {
    c = newCtl(nid, aux);
    tabs.set(key, c);
    publish();
    dispatch(c, { kind: 'node', node: tabNodeView(c, get(nodes).get(nid)) });
  }
  activeConsole.set(key);
  if (opts.keep !== false) {
    pendingActive = null;
    persist();
  }
  if (opts.focus !== false) focusConsole.update((n) => n + 1);
}

/** openConsoleTab opens node nid's console tab (or shows it, when open)
 * and makes it the active one. */
export function openConsoleTab(nid: string, opts: { focus?: boolean } = {}): void {
  openTab(nid, false, opts);
}

/** openAuxTab opens node nid's aux tab — a terminal on its aux console —
 * (or shows it, when open) and makes it the active one. */
export function openAuxTab(nid: string, opts: { focus?: boolean } = {}): void {
  openTab(nid, true, opts);
}

/** showConsoleTab makes the open tab key the active one. */
export function showConsoleTab(key: string): void {
  if (!tabs.has(key)) return;
  activeConsole.set(key);
  pendingActive = null;
  persist();
  focusConsole.update((n) => n + 1);
}

/** closeConsoleTab closes tab key (a node's id for its console tab) and
 * its link; the next tab becomes active. */
export function closeConsoleTab(key: string): void {
  closeTab(key);
  persist();
}

/** closeTab closes tab key, keeping what is saved. */
function closeTab(key: string): void {
  const c = tabs.get(key);
  if (!c) return;
  const keys = [...tabs.keys()];
  const i = keys.indexOf(key);
  tabs.delete(key);
  if (c.timer !== null) clearTimeout(c.timer);
  c.gen++;
  c.link?.close();
  c.link = null;
  c.screen?.remove();
  if (get(activeConsole) === key) {
    const rest = keys.filter((k) => k !== key);
    activeConsole.set(rest.length === 0 ? null : rest[Math.min(i, rest.length - 1)]);
  }
  publish();
}

/** closeAllConsoles closes every tab of the project: none comes back. */
export function closeAllConsoles(): void {
  pending = [];
  pendingActive = null;
  dropAll();
  persist();
}

/** dropAll closes every tab of the page, keeping what is saved for the
 * project's next showing (a reload, or coming back to it). */
function dropAll(): void {
  for (const key of [...tabs.keys()]) closeTab(key);
  activeConsole.set(null);
}

/** sendToConsole types data into tab key's console, when it is connected. */
export function sendToConsole(key: string, data: string): void {
  const c = tabs.get(key);
  if (c?.link && c.m.phase === 'connected') c.link.send?.(data);
}

/** attachScreen shows a VNC tab's screen in el (the dock's place for it).
 * Returns the function that takes it out. */
export function attachScreen(nid: string, el: HTMLElement): () => void {
  const c = tabs.get(nid);
  if (!c) return () => {};
  const screen = screenOf(c);
  el.appendChild(screen);
  return () => {
    if (screen.parentElement === el) el.removeChild(screen);
  };
}

/** focusScreen gives a connected VNC tab's guest the keyboard. */
export function focusScreen(nid: string): void {
  const c = tabs.get(nid);
  if (c?.link && c.m.phase === 'connected') c.link.focus?.();
}

/** attachTerminal makes sink tab key's terminal: the output that waited
 * for it first. Returns the function that detaches it. */
export function attachTerminal(key: string, sink: ConsoleSink): () => void {
  const c = tabs.get(key);
  if (!c) return () => {};
  c.sink = sink;
  for (const b of c.backlog) sink.write(b);
  c.backlog = [];
  c.backlogSize = 0;
  return () => {
    if (c.sink === sink) c.sink = null;
  };
}

/** focusCanvas gives the keyboard back to the canvas (Escape in a terminal). */
export function focusCanvas(): void {
  document.querySelector<HTMLElement>('[data-testid="canvas"]')?.focus();
}

/** Exposed for tests: tab key's machine. */
export function tabMachine(key: string): TabMachine | undefined {
  return tabs.get(key)?.m;
}

/** openWebConsole opens a node's web console in the user's browser when
 * the page is the window's (true); in a browser it says false, and the
 * console's link opens it. */
export const openWebConsole = (url: string): boolean => api.openExternal(url);
