// The node templates (the palette): the built-in devices and the user's
// templates, grouped by category (palette.ts). Making a template (a
// type's template dialog) or importing an appliance reloads them; the
// controller stream's template.* events keep them live, so a template made
// elsewhere (the GNS3 GUI's wizard, another window) shows at once.

import { derived, writable } from 'svelte/store';
import * as api from '../api';
import { paletteRank } from '../../nodekinds';
import { paletteGroups } from '../palette';
import type { ApplianceFile, LiveEvent, Template, TemplateCreate, TemplateUpdate } from '../types';

export const templates = writable<Template[]>([]);
export const templatesError = writable<string | null>(null);
/** The palette's groups, in its order. */
export const templateGroups = derived(templates, (ts) => paletteGroups(ts, paletteRank));

export async function loadTemplates(): Promise<void> {
  try {
    templates.set(await api.listTemplates());
    templatesError.set(null);
  } catch (err) {
    templatesError.set(api.toAppError(err).message);
  }
}

/** upsert puts t in the list: in its place if there, else last (user
 * templates come in creation order). */
function upsert(t: Template): void {
  templates.update((ts) => {
    const i = ts.findIndex((x) => x.template_id === t.template_id);
    return i < 0 ? [...ts, t] : ts.map((x, j) => (j === i ? t : x));
  });
}

/** applyTemplateEvent folds a controller event into the list (the other
 * events of that stream are the projects' and the computes'). */
export function applyTemplateEvent(e: LiveEvent): void {
  switch (e.action) {
    case 'template.created':
    case 'template.updated':
      upsert(e.event);
      return;
    case 'template.deleted':
      templates.update((ts) => ts.filter((x) => x.template_id !== e.event.template_id));
      return;
    case 'resync':
      void loadTemplates();
      return;
    default:
      return;
  }
}

/** addTemplate makes a user template; the palette shows it at once. */
export async function addTemplate(body: TemplateCreate): Promise<Template> {
  const t = await api.createTemplate(body);
  templates.update((ts) => [...ts.filter((x) => x.template_id !== t.template_id), t]);
  void loadTemplates();
  return t;
}

/** importAppliance makes templates from an appliance file's JSON; the
 * palette shows them once made. */
export async function importAppliance(appliance: ApplianceFile): Promise<api.ApplianceImport> {
  const r = await api.importAppliance(appliance);
  await loadTemplates();
  return r;
}

/** saveTemplate changes a user template; the palette shows it at once. */
export async function saveTemplate(tid: string, body: TemplateUpdate): Promise<Template> {
  const t = await api.updateTemplate(tid, body);
  upsert(t);
  return t;
}

/** copyTemplate duplicates a user template (same name, new id). */
export async function copyTemplate(tid: string): Promise<Template> {
  const t = await api.duplicateTemplate(tid);
  upsert(t);
  return t;
}

/** templateUsage counts the nodes made from a template and their projects. */
export const templateUsage = (tid: string) => api.templateUsage(tid);

/** removeTemplate deletes a user template; the nodes made from it keep
 * their settings. */
export async function removeTemplate(tid: string): Promise<void> {
  await api.deleteTemplate(tid);
  templates.update((ts) => ts.filter((x) => x.template_id !== tid));
}

/** The template dialog to show, wherever it was asked for (the palette,
 * the start screen, the empty canvas): the type's entry, and the template
 * to edit (none: a new one). */
export const templateDialog = writable<{ type: string; template?: Template } | null>(null);
