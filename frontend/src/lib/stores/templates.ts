// The node templates (the palette).

import { writable } from 'svelte/store';
import * as api from '../api';
import type { Template } from '../types';

export const templates = writable<Template[]>([]);
export const templatesError = writable<string | null>(null);

/** The palette's order: the way labs are usually built. */
const ORDER = ['vpcs', 'ethernet_switch', 'ethernet_hub', 'frame_relay_switch', 'atm_switch', 'cloud', 'nat'];
const rank = (t: Template) => {
  const i = ORDER.indexOf(t.template_type);
  return i < 0 ? ORDER.length : i;
};

export async function loadTemplates(): Promise<void> {
  try {
    const ts = await api.listTemplates();
    templates.set([...ts].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name)));
    templatesError.set(null);
  } catch (err) {
    templatesError.set(api.toAppError(err).message);
  }
}
