// The palette's order and groups: the built-in devices first, in the way
// labs are usually built, then the user's templates under their category
// (routers, switches, guests, firewalls — GNS3's four), each group by name.
// Which category a template has is the server's (its answer's `category`).

import { findKind } from '../nodekinds';
import { CATEGORIES, type Category } from './categories';
import type { Template } from './types';

export { CATEGORIES, categoryLabel, type Category } from './categories';

/** The built-in devices' order: their types' paletteRank (registry), the
 * others after them. */
const rank = (t: Template) => findKind(t.template_type)?.paletteRank ?? Infinity;
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
 * groups are left out. */
export function paletteGroups(ts: readonly Template[]): PaletteGroup[] {
  const builtin = ts.filter((t) => t.builtin).sort((a, b) => rank(a) - rank(b) || byName(a, b));
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
