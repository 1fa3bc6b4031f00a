// The node templates (the palette): the built-in devices and the user's
// templates, grouped by category (palette.ts). Making a template (the
// "New QEMU template" dialog) or importing an appliance reloads them.

import { derived, writable } from 'svelte/store';
import * as api from '../api';
import { paletteGroups } from '../palette';
import type { ApplianceFile, Template, TemplateCreate } from '../types';

export const templates = writable<Template[]>([]);
export const templatesError = writable<string | null>(null);
/** The palette's groups, in its order. */
export const templateGroups = derived(templates, (ts) => paletteGroups(ts));

export async function loadTemplates(): Promise<void> {
  try {
    templates.set(await api.listTemplates());
    templatesError.set(null);
  } catch (err) {
    templatesError.set(api.toAppError(err).message);
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
