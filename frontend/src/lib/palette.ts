// The palette's order and groups: the built-in devices first, in the way
// labs are usually built, then the user's templates under their category
// (routers, switches, guests, firewalls — GNS3's four), each group by name.
// Which category a template has is the server's (its answer's `category`).

import { CATEGORIES, type Category } from './categories';
import type { Template } from './types';

const byName = (a: Template, b: Template) => a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' });

/** One group of the palette: the built-ins (no heading), or a category's
 * user templates. */
export interface PaletteGroup {
  key: 'builtin' | Category;
  /** The group's heading; '' for the built-ins, shown as they always were. */
  label: string;
  templates: Template[];
}

/** paletteGroups orders templates into the palette's groups; empty
 * groups are left out. rank is a built-in device's place by its type
 * (the registry's paletteRank; Infinity after the others). */
export function paletteGroups(ts: readonly Template[], rank: (type: string) => number): PaletteGroup[] {
  const place = (t: Template) => rank(t.template_type);
  const builtin = ts.filter((t) => t.builtin).sort((a, b) => place(a) - place(b) || byName(a, b));
  const groups: PaletteGroup[] = builtin.length > 0 ? [{ key: 'builtin', label: '', templates: builtin }] : [];
  for (const c of CATEGORIES) {
    const mine = ts.filter((t) => !t.builtin && t.category === c.id).sort(byName);
    if (mine.length > 0) groups.push({ key: c.id, label: c.label, templates: mine });
  }
  // A category this page does not know (a newer server's) still shows.
  const known = new Set<string>(CATEGORIES.map((c) => c.id));
  const other = ts.filter((t) => !t.builtin && !known.has(t.category)).sort(byName);
  if (other.length > 0) groups.push({ key: other[0].category, label: 'Other', templates: other });
  return groups;
}
