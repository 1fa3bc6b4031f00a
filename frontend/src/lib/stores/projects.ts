// The projects, and which one is open in this window.

import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import { assertNever } from '../assert';
import type { LiveEvent, Project } from '../types';
import { notify, whenGone } from './notices';

export const projects = writable<Project[]>([]);
/** 'loading' until the first list arrives; an error message if it failed. */
export const projectsState = writable<'loading' | 'ready' | { error: string }>('loading');
/** The project shown in this window, or null for the start screen. */
export const currentId = writable<string | null>(null);
export const current = derived([projects, currentId], ([ps, id]) => ps.find((p) => p.project_id === id) ?? null);

const byName = (a: Project, b: Project) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' });

function upsert(p: Project): void {
  projects.update((ps) => {
    const i = ps.findIndex((x) => x.project_id === p.project_id);
    const next = i < 0 ? [...ps, p] : ps.map((x, k) => (k === i ? p : x));
    return next.sort(byName);
  });
}

function drop(id: string): void {
  projects.update((ps) => ps.filter((p) => p.project_id !== id));
  if (get(currentId) === id) currentId.set(null);
}

export async function loadProjects(): Promise<void> {
  try {
    projects.set((await api.listProjects()).sort(byName));
    projectsState.set('ready');
  } catch (err) {
    projectsState.set({ error: api.toAppError(err).message });
  }
}

// A failure that says a thing is gone reads the list again.
whenGone(() => void loadProjects());

export async function createProject(name: string): Promise<Project> {
  const p = await api.createProject({ name });
  upsert(p);
  return p;
}

export async function renameProject(id: string, name: string): Promise<Project> {
  const p = await api.updateProject(id, { name });
  upsert(p);
  return p;
}

/** saveProjectAs copies a project under a new name ("Save as") and shows
 * the copy. */
export async function saveProjectAs(id: string, name: string, resetMacAddresses: boolean): Promise<Project> {
  const copy = await api.duplicateProject(id, { name, reset_mac_addresses: resetMacAddresses });
  upsert(copy);
  await openProject(copy.project_id);
  return copy;
}

/** openProject opens a project on the server (if closed) and shows it. */
export async function openProject(id: string): Promise<void> {
  const p = get(projects).find((x) => x.project_id === id);
  if (!p || p.status !== 'opened') upsert(await api.openProject(id));
  currentId.set(id);
  // nodedesk closed it by itself while nobody looked (auto_close): say
  // when, why and what became of its nodes (opening it forgot the note).
  if (p?.closure) notify('info', p.closure.message, 30000);
}

/** tellLeftovers shows what this nodedesk found at start of a previous
 * one that did not shut down, until the user dismisses it (for every
 * page and the window). */
export async function tellLeftovers(): Promise<void> {
  const left = await api.getLeftovers().catch(() => null);
  if (!left?.message) return;
  notify('error', left.message, 120000, { label: 'Got it', run: () => void api.dismissLeftovers().catch(() => {}) });
}

export async function closeProject(id: string): Promise<void> {
  await api.closeProject(id);
  const p = get(projects).find((x) => x.project_id === id);
  if (p) upsert({ ...p, status: 'closed' });
  if (get(currentId) === id) currentId.set(null);
}

export async function deleteProject(id: string): Promise<void> {
  await api.deleteProject(id);
  drop(id);
}

/** applyProjectEvent folds a live event into the list. */
export function applyProjectEvent(e: LiveEvent): void {
  switch (e.action) {
    case 'project.created':
    case 'project.updated':
    case 'project.opened':
    case 'project.closed':
      upsert(e.event);
      return;
    case 'project.deleted':
      drop(e.event.project_id);
      return;
    case 'resync':
      void loadProjects();
      return;
    case 'node.created': case 'node.updated': case 'node.deleted':
    case 'link.created': case 'link.updated': case 'link.deleted':
    case 'drawing.created': case 'drawing.updated': case 'drawing.deleted':
    case 'history.updated':
    case 'check.run.updated':
    case 'compute.created': case 'compute.updated': case 'compute.deleted':
    case 'template.created': case 'template.updated': case 'template.deleted':
    case 'log.error': case 'log.warning': case 'log.info':
      return;
    default:
      assertNever(e, 'event');
  }
}

/** followProjects keeps the list live, and hands each event of the same
 * (controller) stream to also (the computes); returns the unsubscribe
 * function. */
export function followProjects(also?: (e: LiveEvent) => void): () => void {
  return api.subscribe(null, (e) => {
    applyProjectEvent(e);
    also?.(e);
  });
}
