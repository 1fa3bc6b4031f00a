import { describe, expect, it } from 'vitest';
import { dynamipsNodeForm, dynamipsNodeUpdate, guessPlatform, idleless, slotRows, startupConfigPath } from './model';
import { iosTemplateBody } from './index';
import type { DynamipsPlatformInfo } from '../../lib/types';

const c7200: DynamipsPlatformInfo = {
  platform: 'c7200', npes: ['npe-400'], midplanes: ['vxr'], wics: [],
  chassis: [{ name: '', wic_slots: 0, slots: [{ slot: 0, adapters: ['C7200-IO-FE'], built_in: false }, { slot: 1, adapters: ['PA-FE-TX'], built_in: false }] }],
};
const c3725: DynamipsPlatformInfo = {
  platform: 'c3725', npes: [], midplanes: [], wics: ['WIC-1T', 'WIC-2T'],
  chassis: [{ name: '', wic_slots: 3, slots: [{ slot: 0, adapters: ['GT96100-FE'], built_in: true }, { slot: 1, adapters: ['NM-1FE-TX'], built_in: false }] }],
};
const c3600: DynamipsPlatformInfo = {
  platform: 'c3600', npes: [], midplanes: [], wics: [],
  chassis: [{ name: '3640', wic_slots: 0, slots: [] }, { name: '3620', wic_slots: 0, slots: [] }, { name: '3660', wic_slots: 0, slots: [] }],
};
const c2600: DynamipsPlatformInfo = {
  platform: 'c2600', npes: [], midplanes: [], wics: [],
  chassis: [{ name: '2610', wic_slots: 3, slots: [] }, { name: '2621XM', wic_slots: 3, slots: [] }],
};
const known = new Map([c7200, c3725, c3600, c2600].map((p) => [p.platform, p]));

describe('guessPlatform', () => {
  it.each([
    ['c7200-adventerprisek9-mz.124-24.T5.image', 'c7200', ''],
    ['C3725-ADVENTERPRISEK9-M.124-15.T14.bin', 'c3725', ''],
    ['c3640-a3js-mz.124-25d.image', 'c3600', '3640'],
    ['c3620-a3jk8s-mz.122-26c.bin', 'c3600', '3620'],
    ['c2621xm-ipbase.bin', 'c2600', '2621XM'],
    ['c3660-a3jk9s-mz.124-25d', 'c3600', '3660'],
    ['c3631-x.bin', 'c3600', '3640'],
  ])('%s is a %s %s', (name, platform, chassis) => {
    expect(guessPlatform(name, known)).toEqual({ platform, chassis });
  });
  it('says nothing for other names', () => {
    expect(guessPlatform('router.bin', known)).toBeNull();
    expect(guessPlatform('c9999-x.bin', known)).toBeNull();
  });
});

describe('the router form', () => {
  const p = { platform: 'c7200', image: 'c7200.image', ram: 256, nvram: 128, idlepc: '', idlemax: 500, idlesleep: 30, npe: 'npe-400', midplane: 'vxr', slot0: 'C7200-IO-FE', ghost: true };
  it('sends nothing when nothing changed', () => {
    expect(dynamipsNodeUpdate(p, dynamipsNodeForm(p))).toEqual({ ok: true, properties: null });
  });
  it('sends exactly what changed: numbers as numbers, an emptied slot as null, an emptied number as its default', () => {
    const f = dynamipsNodeForm(p);
    f.ram = '512';
    f.nvram = '';
    f.slots.slot0 = '';
    f.slots.slot1 = 'PA-FE-TX';
    f.idlepc = ' 0x60606060 ';
    f.ghost = false;
    expect(dynamipsNodeUpdate(p, f)).toEqual({ ok: true, properties: { ram: 512, nvram: null, slot0: null, slot1: 'PA-FE-TX', idlepc: '0x60606060', ghost: false } });
  });
  it('names the field that cannot be sent as typed', () => {
    const f = dynamipsNodeForm(p);
    f.idlesleep = 'fast';
    expect(dynamipsNodeUpdate(p, f)).toMatchObject({ ok: false, field: 'idlesleep' });
  });
});

describe('slotRows', () => {
  it('lists slots then WIC slots from the catalogue', () => {
    expect(slotRows(c3725, undefined).map((r) => [r.key, r.builtIn])).toEqual([['slot0', true], ['slot1', false], ['wic0', false], ['wic1', false], ['wic2', false]]);
    expect(slotRows(undefined, undefined)).toEqual([]);
  });
});

describe('idleless', () => {
  it('is true for a running router without an idle PC only', () => {
    expect(idleless({ status: 'started', properties: { idlepc: '' } })).toBe(true);
    expect(idleless({ status: 'started', properties: { idlepc: '0x60606060' } })).toBe(false);
    expect(idleless({ status: 'stopped', properties: { idlepc: '' } })).toBe(false);
  });
});

describe('iosTemplateBody', () => {
  it('asks for a name, an image and a platform', () => {
    expect(iosTemplateBody({ name: ' ', image: '', platform: '', chassis: '', ram: '' })).toMatchObject({ ok: false, errors: { name: expect.any(String), image: expect.any(String), platform: expect.any(String) } });
  });
  it('sends the platform and chassis, and RAM only when typed', () => {
    expect(iosTemplateBody({ name: 'c3640', image: 'c3640.bin', platform: 'c3600', chassis: '3640', ram: '' })).toEqual({
      ok: true, body: { template_type: 'dynamips', name: 'c3640', compute_id: 'local', platform: 'c3600', chassis: '3640', image: 'c3640.bin' },
    });
  });
});

describe('startupConfigPath', () => {
  it("is the router's configs/i<dynamips_id>_startup-config.cfg, none before it has a number", () => {
    expect(startupConfigPath({ properties: { dynamips_id: 3 } })).toBe('configs/i3_startup-config.cfg');
    expect(startupConfigPath({ properties: {} })).toBeNull();
    expect(startupConfigPath({ properties: { dynamips_id: 0 } })).toBeNull();
    expect(startupConfigPath({ properties: { dynamips_id: '3' } })).toBeNull();
  });
});
