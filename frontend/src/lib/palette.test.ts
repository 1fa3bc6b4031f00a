import { describe, expect, it } from 'vitest';
import { paletteRank } from '../nodekinds';
import { paletteGroups as groupsOf } from './palette';
import type { Template } from './types';

const paletteGroups = (ts: readonly Template[]) => groupsOf(ts, paletteRank);

const tpl = (name: string, over: Partial<Template> = {}): Template => ({
  template_id: name, name, template_type: 'qemu', category: 'guest', compute_id: 'local', default_name_format: '{name}-{0}',
  symbol: ':/symbols/qemu_guest.svg', builtin: false, ...over,
});
const builtin = (type: Template['template_type'], name: string): Template => tpl(name, { template_type: type, builtin: true, category: 'switch' });

describe('the palette', () => {
  it('shows the built-ins first, in the usual order, then the user templates by category, each by name', () => {
    const groups = paletteGroups([
      tpl('vyos', { category: 'router' }), builtin('nat', 'NAT'), tpl('Alpine 10'), builtin('vpcs', 'VPCS'),
      tpl('pfSense', { category: 'firewall' }), tpl('Alpine 9'), builtin('ethernet_switch', 'Ethernet switch'),
      tpl('OpenWrt', { category: 'router' }),
    ]);
    expect(groups.map((g) => [g.key, g.label, g.templates.map((t) => t.name)])).toEqual([
      ['builtin', '', ['VPCS', 'Ethernet switch', 'NAT']],
      ['router', 'Routers', ['OpenWrt', 'vyos']],
      ['guest', 'Guests', ['Alpine 9', 'Alpine 10']],
      ['firewall', 'Firewalls', ['pfSense']],
    ]);
  });

  it('groups a user template by its category even when it is of a built-in type, and leaves empty groups out', () => {
    const groups = paletteGroups([tpl('Office switch', { template_type: 'ethernet_switch', category: 'switch' })]);
    expect(groups).toEqual([{ key: 'switch', label: 'Switches', templates: [tpl('Office switch', { template_type: 'ethernet_switch', category: 'switch' })] }]);
    expect(paletteGroups([])).toEqual([]);
  });

  it('still shows a template of a category it does not know', () => {
    const odd = tpl('Thing', { category: 'appliance' as Template['category'] });
    expect(paletteGroups([odd]).map((g) => [g.label, g.templates.length])).toEqual([['Other', 1]]);
  });
});
