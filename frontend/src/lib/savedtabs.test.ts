import { describe, expect, it } from 'vitest';
import { loadTabs, saveTabs, type TabStorage } from './savedtabs';

function memory(): TabStorage & { m: Map<string, string> } {
  const m = new Map<string, string>();
  return { m, getItem: (k) => m.get(k) ?? null, setItem: (k, v) => void m.set(k, v), removeItem: (k) => void m.delete(k) };
}

describe('saved console tabs', () => {
  it('come back per project, in their order, with the one shown', () => {
    const s = memory();
    saveTabs(s, 'p1', { tabs: [{ nid: 'a', aux: false }, { nid: 'b', aux: true }], active: 1 });
    saveTabs(s, 'p2', { tabs: [{ nid: 'c', aux: false }], active: 0 });
    expect(loadTabs(s, 'p1')).toEqual({ tabs: [{ nid: 'a', aux: false }, { nid: 'b', aux: true }], active: 1 });
    expect(loadTabs(s, 'p2').tabs).toEqual([{ nid: 'c', aux: false }]);
    saveTabs(s, 'p1', { tabs: [], active: null });
    expect(loadTabs(s, 'p1')).toEqual({ tabs: [], active: null });
    expect(s.m.has('nodedesk.consoles.p1')).toBe(false);
  });

  it('ignore what the storage holds that is not tabs', () => {
    const s = memory();
    s.m.set('nodedesk.consoles.p', '{oops');
    expect(loadTabs(s, 'p')).toEqual({ tabs: [], active: null });
    s.m.set('nodedesk.consoles.p', JSON.stringify({ tabs: [{ nid: 'a' }, 3, { nid: '' }, { nid: 'a' }, { nid: 'b', aux: 'yes' }], active: 9 }));
    expect(loadTabs(s, 'p')).toEqual({ tabs: [{ nid: 'a', aux: false }, { nid: 'b', aux: false }], active: null });
  });
});
