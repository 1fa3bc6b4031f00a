// The palette's order and groups: every device, built-in or the user's,
// under its category, as GNS3's device browser groups them (routers,
// switches, end devices, security devices), the built-ins of a group
// first in the way labs are usually built, then the user's templates by
// name. Which category a template has is the server's (its answer's
// `category`). And what a template's menu in the palette offers.

import { CATEGORIES, type Category } from './categories';
import type { MenuEntry } from './menu';
import type { Template } from './types';

const byName = (a: Template, b: Template) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' });

/** One group of the palette: a category's devices. */
export interface PaletteGroup {
  key: Category;
  /** The group's heading. */
  label: string;
  templates: Template[];
}

/** paletteGroups orders templates into the palette's groups; empty
 * groups are left out. rank is a built-in device's place by its type
 * (the registry's paletteRank; Infinity after the others). */
export function paletteGroups(ts: readonly Template[], rank: (type: string) => number): PaletteGroup[] {
  const place = (t: Template) => rank(t.template_type);
  const order = (a: Template, b: Template) =>
    Number(b.builtin) - Number(a.builtin) || (a.builtin ? place(a) - place(b) : 0) || byName(a, b);
  const groups: PaletteGroup[] = [];
  for (const c of CATEGORIES) {
    const mine = ts.filter((t) => t.category === c.id).sort(order);
    if (mine.length > 0) groups.push({ key: c.id, label: c.label, templates: mine });
  }
  // A category this page does not know (a newer server's) still shows.
  const known = new Set<string>(CATEGORIES.map((c) => c.id));
  const other = ts.filter((t) => !known.has(t.category)).sort(order);
  if (other.length > 0) groups.push({ key: other[0].category, label: 'Other', templates: other });
  return groups;
}

/** templateEntries are the entries of a template's menu in the palette:
 * edit, duplicate and delete a user template; a built-in one says why it
 * has none. */
export function templateEntries(t: Template): MenuEntry[] {
  if (t.builtin) {
    return [{ id: 'builtin', label: `${t.name} is built in: it cannot be edited or deleted`, disabled: true,
      title: 'Built-in devices come with nodedesk. To change one, set up a node of it in its panel after adding it.' }];
  }
  return [
    { id: 'edit', label: 'Edit template…' },
    { id: 'duplicate', label: 'Duplicate' },
    { id: 'delete', label: 'Delete template…', danger: true, sep: true },
  ];
}

/** usageSentence says what deleting a template leaves behind, from the
 * server's count of the nodes made from it. */
export function usageSentence(u: { nodes: number; projects: number }): string {
  if (u.nodes === 0) return 'No node was made from it.';
  const nodes = u.nodes === 1 ? '1 node' : `${u.nodes} nodes`;
  const projects = u.projects === 1 ? '1 project' : `${u.projects} projects`;
  return `${nodes} in ${projects} ${u.nodes === 1 ? 'was' : 'were'} made from it; ${u.nodes === 1 ? 'it keeps its' : 'they keep their'} settings.`;
}
