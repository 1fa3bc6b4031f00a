import { describe, expect, it } from 'vitest';
import { CATEGORIES, categoryLabel } from './categories';

describe('the template categories', () => {
  it("are GNS3's four in the palette's order, each with its heading", () => {
    expect(CATEGORIES.map((c) => c.id)).toEqual(['router', 'switch', 'guest', 'firewall']);
    expect(categoryLabel('firewall')).toBe('Security devices');
    expect(categoryLabel('guest')).toBe('End devices');
  });
});
