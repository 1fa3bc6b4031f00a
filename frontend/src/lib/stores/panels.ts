// Which side panels are shown: the projects list, the devices palette and
// the properties inspector each collapse, so that the canvas can take the
// window, and the Checks panel opens beside the inspector; the choice is
// kept in the browser across reloads.

import { writable } from 'svelte/store';

export interface Panels {
  projects: boolean;
  palette: boolean;
  inspector: boolean;
  /** The Checks panel ("check my lab"): hidden until asked for. */
  checks: boolean;
}

export const PANELS_KEY = 'nodedesk.panels';
const ALL: Panels = { projects: true, palette: true, inspector: true, checks: false };

function load(): Panels {
  try {
    const v = JSON.parse(localStorage.getItem(PANELS_KEY) ?? 'null');
    if (v && typeof v === 'object') {
      return { projects: v.projects !== false, palette: v.palette !== false, inspector: v.inspector !== false, checks: v.checks === true };
    }
  } catch {
    // No storage (or a bad value): every panel shown.
  }
  return { ...ALL };
}

export const panels = writable<Panels>(load());
panels.subscribe((p) => {
  try {
    localStorage.setItem(PANELS_KEY, JSON.stringify(p));
  } catch {
    // Not kept: the panels come back on the next load.
  }
});

/** togglePanel shows or hides one panel. */
export function togglePanel(k: keyof Panels, on?: boolean): void {
  panels.update((p) => ({ ...p, [k]: on ?? !p[k] }));
}
