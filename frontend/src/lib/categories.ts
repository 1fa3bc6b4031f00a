// The categories of templates, GNS3's four, in the palette's order, with
// the heading each group gets (the GNS3 GUI's words). Which category a template has is the
// server's (its answer's `category`).

import type { Template } from './types';

/** A template's category, as the contract spells it. */
export type Category = Template['category'];

/** The categories in the palette's order, with the heading each group gets. */
export const CATEGORIES: readonly { id: Category; label: string }[] = [
  { id: 'router', label: 'Routers' },
  { id: 'switch', label: 'Switches' },
  { id: 'guest', label: 'End devices' },
  { id: 'firewall', label: 'Security devices' },
];

/** categoryLabel is the heading of a category's group. */
export const categoryLabel = (c: Category): string => CATEGORIES.find((x) => x.id === c)?.label ?? c;
