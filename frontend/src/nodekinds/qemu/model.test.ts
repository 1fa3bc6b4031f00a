import { describe, expect, it } from 'vitest';
import {
  ADAPTER_TYPES, accelerationNote, adapterTypes, emptyQemuTemplateForm, qemuFacts as factsOf, qemuNodeForm,
  qemuNodeUpdate, qemuTemplateField, type QemuTemplateForm,
} from './model';
import { deps, qemuTemplateBody } from './index';
import type { NodeProperties } from '../../lib/types';

const qemuFacts = (p: NodeProperties) => factsOf(p, deps.binaryLabel);

const form = (over: Partial<QemuTemplateForm>): QemuTemplateForm => ({ ...emptyQemuTemplateForm(), ...over });

describe('the new QEMU template form', () => {
  it('sends a disk template with only what was given: the server fills in the rest', () => {
    expect(qemuTemplateBody(form({ name: ' OpenWrt ', category: 'router', hda_disk_image: 'openwrt.qcow2' }))).toEqual({
      ok: true,
      body: { template_type: 'qemu', name: 'OpenWrt', category: 'router', compute_id: 'local', hda_disk_image: 'openwrt.qcow2' },
    });
  });

  it('sends the numbers as numbers, and the adapter and console types chosen', () => {
    const r = qemuTemplateBody(form({ name: 'vm', hda_disk_image: 'a.img', ram: '512', cpus: ' 2 ', adapters: '4', adapter_type: 'virtio-net-pci', console_type: 'vnc' }));
    expect(r).toMatchObject({ ok: true, body: { ram: 512, cpus: 2, adapters: 4, adapter_type: 'virtio-net-pci', console_type: 'vnc' } });
  });

  it('says by field what cannot be sent: no name, no image, numbers that are not whole', () => {
    const r = qemuTemplateBody(form({ name: '  ', ram: '512MB', cpus: '1.5', adapters: 'x' }));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(Object.keys(r.errors).sort()).toEqual(['adapters', 'cpus', 'hda_disk_image', 'name', 'ram']);
    expect(r.errors.ram).toMatch(/whole number of megabytes/);
  });

  it('boots a kernel instead of a disk when asked: the kernel is needed, the initrd and command line are not', () => {
    expect(qemuTemplateBody(form({ name: 'k', boot: 'kernel', hda_disk_image: 'ignored.img' }))).toMatchObject({ ok: false, errors: { kernel_image: expect.any(String) } });
    const r = qemuTemplateBody(form({ name: 'k', boot: 'kernel', kernel_image: 'vmlinuz', initrd: 'initrd.img', kernel_command_line: ' console=ttyS0 ', hda_disk_image: 'ignored.img' }));
    expect(r).toEqual({
      ok: true,
      body: { template_type: 'qemu', name: 'k', category: 'guest', compute_id: 'local', kernel_image: 'vmlinuz', initrd: 'initrd.img', kernel_command_line: 'console=ttyS0' },
    });
  });

  it("places the server's error by the field its path names", () => {
    expect(qemuTemplateField('ram')).toBe('ram');
    expect(qemuTemplateField('properties.adapter_type')).toBe('adapter_type');
    expect(qemuTemplateField('template_id')).toBeNull();
    expect(qemuTemplateField(null)).toBeNull();
  });
});

describe('a QEMU node in the panel', () => {
  const props = {
    hda_disk_image: 'alpine.qcow2', hda_disk_interface: 'virtio', hdb_disk_image: 'data.qcow2', hdb_disk_interface: 'ide', ram: 256, cpus: 1,
    adapters: 2, adapter_type: 'e1000', on_close: 'power_off', options: '', kernel_image: '', initrd: '', cdrom_image: '', bios_image: '',
    linked_clone: true, boot_priority: 'cd', platform: 'x86_64', mac_address: '0c:aa:bb:00:00:00',
  };

  it('sends only the properties changed, numbers as numbers', () => {
    const f = qemuNodeForm(props);
    expect(qemuNodeUpdate(props, f)).toEqual({ ok: true, properties: null });
    expect(qemuNodeUpdate(props, { ...f, ram: '1024', adapter_type: 'virtio-net-pci', options: '-nographic' })).toEqual({
      ok: true, properties: { ram: 1024, adapter_type: 'virtio-net-pci', options: '-nographic' },
    });
  });

  it('refuses a number that is not whole, or emptied, naming its field', () => {
    const f = qemuNodeForm(props);
    expect(qemuNodeUpdate(props, { ...f, cpus: 'two' })).toMatchObject({ ok: false, field: 'cpus' });
    expect(qemuNodeUpdate(props, { ...f, ram: '' })).toMatchObject({ ok: false, field: 'ram' });
  });

  it('tells the rest in words, only what the node has', () => {
    expect(qemuFacts(props)).toEqual([
      { key: 'hdb_disk_image', label: 'Disk hdb', value: 'data.qcow2 (ide)' },
      { key: 'hda_disk_interface', label: 'Disk hda interface', value: 'virtio' },
      { key: 'boot_priority', label: 'Boot from', value: 'disk, then CD/DVD' },
      { key: 'platform', label: 'Platform', value: 'x86_64' },
      { key: 'linked_clone', label: 'Linked clone', value: 'yes: its disks are copies-on-write of the images' },
      { key: 'mac_address', label: 'MAC address', value: '0c:aa:bb:00:00:00' },
    ]);
    expect(qemuFacts({})).toEqual([]);
    // GNS3's "none" interface is QEMU's default: nothing to say.
    expect(qemuFacts({ hda_disk_image: 'a.qcow2', hda_disk_interface: 'none', hdb_disk_image: 'b.qcow2', hdb_disk_interface: 'none' }))
      .toEqual([{ key: 'hdb_disk_image', label: 'Disk hdb', value: 'b.qcow2' }]);
  });

  it("says when guests run without acceleration: the node's note first, then the compute's", () => {
    expect(accelerationNote({}, null)).toBeNull();
    expect(accelerationNote({}, { acceleration: 'kvm', kvm: ['x86_64'] })).toBeNull();
    expect(accelerationNote({}, { kvm: [], acceleration: 'tcg', acceleration_note: 'running without hardware acceleration: slower' }))
      .toBe('running without hardware acceleration: slower');
    expect(accelerationNote({}, { kvm: [], acceleration: 'tcg' })).toMatch(/no hardware acceleration/);
    expect(accelerationNote({ acceleration_note: 'TCG, 64 MB cache' }, { kvm: ['x86_64'], acceleration: 'kvm' })).toBe('TCG, 64 MB cache');
  });
});

describe('adapter types', () => {
  it("keeps an adapter type GNS3's list lacks", () => {
    expect(adapterTypes('e1000')).toEqual([...ADAPTER_TYPES]);
    expect(adapterTypes('virtio-net-pci-non-transitional')[0]).toBe('virtio-net-pci-non-transitional');
  });
});
