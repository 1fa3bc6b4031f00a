import { describe, expect, it } from 'vitest';
import { paletteRank } from '../nodekinds';
import { paletteGroups as groupsOf, templateEntries, usageSentence } from './palette';
import type { Template } from './types';

const paletteGroups = (ts: readonly Template[]) => groupsOf(ts, paletteRank);

const tpl = (name: string, over: Partial<Template> = {}): Template => ({
  template_id: name, name, template_type: 'qemu', category: 'guest', compute_id: 'local', default_name_format: '{name}-{0}',
  symbol: ':/symbols/qemu_guest.svg', builtin: false, ...over,
});
const builtin = (type: Template['template_type'], name: string, category: Template['category']): Template =>
  tpl(name, { template_type: type, builtin: true, category });

describe('the palette', () => {
  it("groups every device by its category, as GNS3's device browser: built-ins first in the usual order, then the user's by name", () => {
    const groups = paletteGroups([
      tpl('vyos', { category: 'router' }), builtin('nat', 'NAT', 'guest'), tpl('Alpine 10'), builtin('vpcs', 'VPCS', 'guest'),
      tpl('pfSense', { category: 'firewall' }), tpl('Alpine 9'), builtin('ethernet_hub', 'Ethernet hub', 'switch'),
      builtin('ethernet_switch', 'Ethernet switch', 'switch'), tpl('OpenWrt', { category: 'router' }),
      tpl('Office switch', { template_type: 'ethernet_switch', category: 'switch' }),
    ]);
    expect(groups.map((g) => [g.key, g.label, g.templates.map((t) => t.name)])).toEqual([
      ['router', 'Routers', ['OpenWrt', 'vyos']],
      ['switch', 'Switches', ['Ethernet switch', 'Ethernet hub', 'Office switch']],
      ['guest', 'End devices', ['VPCS', 'NAT', 'Alpine 9', 'Alpine 10']],
      ['firewall', 'Security devices', ['pfSense']],
    ]);
  });

  it('leaves empty groups out', () => {
    expect(paletteGroups([tpl('Core', { category: 'router' })]).map((g) => g.key)).toEqual(['router']);
    expect(paletteGroups([])).toEqual([]);
  });

  it('still shows a template of a category it does not know', () => {
    const odd = tpl('Thing', { category: 'appliance' as Template['category'] });
    expect(paletteGroups([odd]).map((g) => [g.label, g.templates.length])).toEqual([['Other', 1]]);
  });
});

describe("a template's menu in the palette", () => {
  it('edits, duplicates and deletes a user template', () => {
    expect(templateEntries(tpl('Alpine')).map((e) => [e.id, !!e.disabled])).toEqual([['edit', false], ['duplicate', false], ['delete', false]]);
  });

  it('says a built-in one cannot be edited or deleted, and offers nothing', () => {
    const entries = templateEntries(builtin('vpcs', 'VPCS', 'guest'));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ id: 'builtin', disabled: true, label: 'VPCS is built in: it cannot be edited or deleted' });
  });
});

describe('what deleting a template leaves', () => {
  it('counts the nodes made from it and their projects, in plain words', () => {
    expect(usageSentence({ nodes: 3, projects: 2 })).toBe('3 nodes in 2 projects were made from it; they keep their settings.');
    expect(usageSentence({ nodes: 1, projects: 1 })).toBe('1 node in 1 project was made from it; it keeps its settings.');
    expect(usageSentence({ nodes: 0, projects: 0 })).toBe('No node was made from it.');
  });
});
