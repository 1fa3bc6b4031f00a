import { describe, expect, it } from 'vitest';
import { buildUpdate, formFields, formFromNode } from './nodeform';
import type { FrRow } from '../nodekinds/frame_relay_switch/model';
import type { EthernetSwitchPort } from './types';
import type { DockerNodeForm } from '../nodekinds/docker/model';
import { NAT_LOOPBACK_LABEL } from '../nodekinds/nat/model';
import type { QemuNodeForm } from '../nodekinds/qemu/model';
import { bulkEdit } from '../nodekinds/ethernet_switch/model';
import { ethSwitch, frSwitch, vpcs } from './testdata';

describe('node form', () => {
  it('sends nothing when nothing changed', () => {
    for (const n of [vpcs(), ethSwitch(), frSwitch()]) {
      expect(buildUpdate(n, formFromNode(n))).toEqual({ ok: true, body: {}, changed: false });
    }
  });

  it('sends only the changed general fields, the label whole', () => {
    const n = vpcs();
    const f = { ...formFromNode(n), name: 'PC9', console: 5100, label: 'web', x: 50 };
    const r = buildUpdate(n, f);
    expect(r).toEqual({
      ok: true, changed: true,
      body: { name: 'PC9', console: 5100, label: { text: 'web', style: null, x: null, y: -40, rotation: 0 }, x: 50 },
    });
  });

  it('refuses a console port that is not a whole number, naming the field', () => {
    const n = vpcs();
    expect(buildUpdate(n, { ...formFromNode(n), console: 50.5 })).toMatchObject({ ok: false, field: 'console' });
    expect(buildUpdate(n, { ...formFromNode(n), x: null })).toMatchObject({ ok: false, field: 'x' });
  });

  it('sends "none" console type as null for types with a choice', () => {
    const n = vpcs('q1', { node_type: 'qemu' });
    const r = buildUpdate(n, { ...formFromNode(n), console_type: 'none' });
    expect(r).toEqual({ ok: true, changed: true, body: { console_type: null } });
  });

  it('never sends console fields for types without a console', () => {
    const n = ethSwitch();
    const r = buildUpdate(n, { ...formFromNode(n), console: 5005 });
    expect(r).toEqual({ ok: true, changed: false, body: {} });
  });

  it('saves the VPCS startup script in properties', () => {
    const n = vpcs();
    expect(buildUpdate(n, { ...formFromNode(n), own: 'ip 10.0.0.1/24\n' })).toMatchObject({
      ok: true, body: { properties: { startup_script: 'ip 10.0.0.1/24\n' } },
    });
  });

  it('saves the whole switch port table after a bulk edit', () => {
    const n = ethSwitch();
    const f = formFromNode<EthernetSwitchPort[]>(n);
    f.own = bulkEdit(f.own, new Set([0, 1]), { type: 'dot1q', vlan: 20 });
    const r = buildUpdate(n, f);
    expect(r.ok).toBe(true);
    if (r.ok) {
      const pm = r.body.properties?.ports_mapping as { type: string; vlan: number }[];
      expect(pm).toHaveLength(4);
      expect(pm.slice(0, 3).map((p) => [p.type, p.vlan])).toEqual([['dot1q', 20], ['dot1q', 20], ['access', 1]]);
    }
  });

  it('saves Frame Relay rows as mappings, as typed, and names a row the wire form cannot hold', () => {
    const n = frSwitch();
    const f = formFromNode<FrRow[]>(n);
    f.own = [...f.own, { srcPort: '1', srcDlci: '102', dstPort: '3', dstDlci: '301' }];
    expect(buildUpdate(n, f)).toMatchObject({ ok: true, body: { properties: { mappings: { '1:101': '2:201', '1:102': '3:301' } } } });
    f.own[1].dstDlci = 'x'; // the server's 400 says what is wrong
    expect(buildUpdate(n, f)).toMatchObject({ ok: true, body: { properties: { mappings: { '1:101': '2:201', '1:102': '3:x' } } } });
    f.own[1].srcDlci = '101';
    expect(buildUpdate(n, f)).toMatchObject({ ok: false, field: 'mappings', row: 1 });
  });

  it('lists the fields of each editor, where server errors are shown', () => {
    expect(formFields(ethSwitch())).toContain('ports_mapping');
    expect(formFields(frSwitch())).toContain('mappings');
    expect(formFields(vpcs())).toContain('startup_script');
  });
});

import { isDirty, rebase } from './nodeform';

describe('live updates while editing', () => {
  it('take new values for untouched fields and keep the user\'s edits', () => {
    const base = vpcs('pc1', { x: 10 });
    const form = { ...formFromNode<string>(base), own: 'ip dhcp' };
    const next = { ...base, x: 99, name: 'PC-renamed' };
    const out = rebase(base, form, next);
    expect(out.x).toBe(99);
    expect(out.name).toBe('PC-renamed');
    expect(out.own).toBe('ip dhcp');
    expect(buildUpdate(next, out)).toMatchObject({ ok: true, body: { properties: { startup_script: 'ip dhcp' } } });
  });

  it('keep an edited field even when the server changed it too', () => {
    const base = vpcs();
    const out = rebase(base, { ...formFromNode(base), name: 'mine' }, { ...base, name: 'theirs' });
    expect(out.name).toBe('mine');
  });

  it('know when the form holds unsaved edits', () => {
    const n = ethSwitch();
    expect(isDirty(n, formFromNode(n))).toBe(false);
    expect(isDirty(n, { ...formFromNode(n), label: 'core' })).toBe(true);
    expect(isDirty(n, { ...formFromNode(n), z: null })).toBe(true);
  });
});

describe('the form of a QEMU node', () => {
  const vm = (props: Record<string, unknown> = {}) =>
    vpcs('q1', { node_type: 'qemu', name: 'vm1', properties: { hda_disk_image: 'alpine.qcow2', ram: 256, cpus: 1, adapters: 1, adapter_type: 'e1000', on_close: 'power_off', ...props } });

  it('sends the changed VM properties, and nothing when none changed', () => {
    const n = vm();
    expect(buildUpdate(n, formFromNode<QemuNodeForm>(n))).toEqual({ ok: true, body: {}, changed: false });
    const f = formFromNode<QemuNodeForm>(n);
    expect(buildUpdate(n, { ...f, own: { ...f.own, ram: '1024', hda_disk_image: 'openwrt.img' } })).toEqual({
      ok: true, changed: true, body: { properties: { hda_disk_image: 'openwrt.img', ram: 1024 } },
    });
  });

  it('shows an error about a VM property by its field', () => {
    const n = vm();
    const f = formFromNode<QemuNodeForm>(n);
    expect(buildUpdate(n, { ...f, own: { ...f.own, adapters: 'four' } })).toMatchObject({ ok: false, field: 'adapters', row: null });
    expect(formFields(n)).toEqual(expect.arrayContaining(['ram', 'cpus', 'adapters', 'adapter_type', 'on_close', 'hda_disk_image', 'options']));
  });

  it('keeps the VM fields the user edits when the node changes meanwhile, and takes the others', () => {
    const base = vm();
    const f = formFromNode<QemuNodeForm>(base);
    const out = rebase(base, { ...f, own: { ...f.own, ram: '2048' } }, vm({ cpus: 4, ram: 512 }));
    expect(out.own.ram).toBe('2048');
    expect(out.own.cpus).toBe('4');
  });
});

describe('the form of a Docker node', () => {
  const ct = (props: Record<string, unknown> = {}, over: Partial<Parameters<typeof vpcs>[1]> = {}) =>
    vpcs('d1', {
      node_type: 'docker', name: 'alpine-1',
      properties: { image: 'alpine:latest', adapters: 1, start_command: '', environment: '', extra_hosts: '', extra_volumes: [], console_resolution: '1024x768', console_http_port: 80, console_http_path: '/', mac_address: '', aux: 5001, ...props },
      ...over,
    });

  it('sends the changed container properties, custom adapters beside them, and nothing when none changed', () => {
    const n = ct();
    expect(buildUpdate(n, formFromNode(n))).toEqual({ ok: true, body: {}, changed: false });
    const f = formFromNode<DockerNodeForm>(n);
    const rows = f.own.custom_adapters.map((r) => ({ ...r, port_name: 'lan' }));
    expect(buildUpdate(n, { ...f, own: { ...f.own, adapters: '2', start_command: 'sh', custom_adapters: rows } })).toEqual({
      ok: true, changed: true, body: { properties: { adapters: 2, start_command: 'sh' }, custom_adapters: [{ adapter_number: 0, port_name: 'lan' }] },
    });
  });

  it('shows an error about a container property by its field', () => {
    const n = ct();
    const f = formFromNode<DockerNodeForm>(n);
    expect(buildUpdate(n, { ...f, own: { ...f.own, adapters: 'many' } })).toMatchObject({ ok: false, field: 'adapters', row: null });
    expect(formFields(n)).toEqual(expect.arrayContaining(['image', 'adapters', 'environment', 'extra_volumes', 'mac_address', 'custom_adapters']));
  });

  it('keeps the container fields the user edits when the node changes meanwhile, and takes the others', () => {
    const base = ct();
    const f = formFromNode<DockerNodeForm>(base);
    const out = rebase(base, { ...f, own: { ...f.own, environment: 'TZ=UTC' } }, ct({ start_command: 'sh -l', environment: 'X=1' }));
    expect(out.own.environment).toBe('TZ=UTC');
    expect(out.own.start_command).toBe('sh -l');
  });

  it("turns a NAT node's host loopback on and off, off when absent", () => {
    const nat = vpcs('n1', { node_type: 'nat', console: null, console_type: null, properties: { ports_mapping: [] } });
    const f = formFromNode<boolean>(nat);
    expect(f.own).toBe(false);
    expect(buildUpdate(nat, f)).toEqual({ ok: true, body: {}, changed: false });
    expect(buildUpdate(nat, { ...f, own: true })).toEqual({ ok: true, changed: true, body: { properties: { allow_host_loopback: true } } });
    const on = vpcs('n1', { node_type: 'nat', console: null, console_type: null, properties: { ports_mapping: [], allow_host_loopback: true } });
    expect(formFromNode(on).own).toBe(true);
    expect(buildUpdate(on, { ...formFromNode(on), own: false })).toEqual({ ok: true, changed: true, body: { properties: { allow_host_loopback: false } } });
    expect(formFields(nat)).toContain('allow_host_loopback');
    expect(NAT_LOOPBACK_LABEL).toBe('Let the lab reach services that listen only on this computer (127.0.0.1)');
  });
});
