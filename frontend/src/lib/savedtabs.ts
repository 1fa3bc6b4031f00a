// Which console tabs a project had open, kept in the browser (the
// window's page too) so that a reload brings them back: per project, the
// tabs in their order (a node's id, and whether it is its aux tab) and
// the one shown. What the storage holds is checked, never trusted.

/** A saved tab: its node, and whether it is the node's aux tab. */
export interface SavedTab { nid: string; aux: boolean }
export interface SavedTabs { tabs: SavedTab[]; active: number | null }

/** The storage the tabs are kept in (localStorage; a map in tests). */
export type TabStorage = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

const key = (pid: string) => `nodedesk.consoles.${pid}`;

/** saveTabs keeps project pid's tabs; none forgets them. */
export function saveTabs(store: TabStorage, pid: string, s: SavedTabs): void {
  try {
    if (s.tabs.length === 0) store.removeItem(key(pid));
    else store.setItem(key(pid), JSON.stringify(s));
  } catch {
    // No storage (private mode, full): the tabs do not come back.
  }
}

/** loadTabs is project pid's kept tabs: none when nothing (valid) is kept. */
export function loadTabs(store: TabStorage, pid: string): SavedTabs {
  let v: unknown;
  try {
    v = JSON.parse(store.getItem(key(pid)) ?? 'null');
  } catch {
    return { tabs: [], active: null };
  }
  if (typeof v !== 'object' || v === null || !Array.isArray((v as SavedTabs).tabs)) return { tabs: [], active: null };
  const seen = new Set<string>();
  const tabs: SavedTab[] = [];
  for (const t of (v as SavedTabs).tabs as unknown[]) {
    if (typeof t !== 'object' || t === null) continue;
    const { nid, aux } = t as Record<string, unknown>;
    if (typeof nid !== 'string' || nid === '' || seen.has(`${nid}|${aux === true}`)) continue;
    seen.add(`${nid}|${aux === true}`);
    tabs.push({ nid, aux: aux === true });
  }
  const a = (v as SavedTabs).active;
  return { tabs, active: typeof a === 'number' && Number.isInteger(a) && a >= 0 && a < tabs.length ? a : null };
}
