// QEMU virtual machines as the page shows and edits them: the form of
// the New QEMU template dialog
// and its POST /v2/templates body, a QEMU node's properties in words
// (GNS3's qemu keys), the part of the node panel that edits the common
// ones, and the acceleration note (KVM, or TCG and slower). The forms check only that what was
// typed can be sent (a whole number where the body wants one, an image
// or a kernel to boot); every rule about the values is the server's,
// whose 400 names the field.

import type { Readable } from 'svelte/store';
import type { ConsoleChoice } from '../../lib/nodetypes';
import { wholeNumber } from '../../lib/numbers';
import type { Category } from '../../lib/categories';
import type { ImageSource } from '../../lib/stores/images';
import type { NodeProperties, QEMUCapabilities, Template } from '../../lib/types';
import { readTemplate } from '../helpers';

/** How a compute runs guests: KVM or TCG, and a note when slower. */
export type QemuCapabilities = QEMUCapabilities;

/** The network adapters GNS3 2.2 offers for a QEMU VM, as QEMU names them. */
export const ADAPTER_TYPES = [
  'e1000', 'e1000-82544gc', 'e1000-82545em', 'e1000e', 'i82550', 'i82551', 'i82557a', 'i82557b', 'i82557c', 'i82558a',
  'i82558b', 'i82559a', 'i82559b', 'i82559c', 'i82559er', 'i82562', 'i82801', 'igb', 'ne2k_pci', 'pcnet', 'rocker',
  'rtl8139', 'virtio', 'virtio-net-pci', 'vmxnet3',
] as const;

/** adapterTypes are the choices of an adapter type field: GNS3's, and the
 * current value when it is another one (a newer appliance's). */
export function adapterTypes(current: string): string[] {
  const all: string[] = [...ADAPTER_TYPES];
  return current && !all.includes(current) ? [current, ...all] : all;
}

/** What a QEMU node does when it is stopped (GNS3's on_close). */
export const ON_CLOSE = [
  { id: 'power_off', label: 'Power off' },
  { id: 'shutdown_signal', label: 'Shut down (ACPI)' },
  { id: 'save_vm_state', label: 'Save its state' },
] as const;

/** What the entry loads for the views: the images folder, and how this
 * nodedesk runs guests (null until known). */
export interface QemuDeps {
  images: ImageSource;
  capabilities: Readable<QemuCapabilities | null>;
  loadCapabilities(): void;
  /** The name of the emulator binary's fact. */
  binaryLabel: string;
}

// ---- The template dialog's form ----

/** The dialog's form, as typed. */
export interface QemuTemplateForm {
  name: string;
  category: Category;
  /** Boot from a disk image, or (advanced) from a kernel and an initrd. */
  boot: 'disk' | 'kernel';
  hda_disk_image: string;
  kernel_image: string;
  initrd: string;
  kernel_command_line: string;
  /** Numbers as typed; empty leaves the server's default. */
  ram: string;
  cpus: string;
  adapters: string;
  /** '' leaves the server's default. */
  adapter_type: string;
  /** '' leaves the server's default. */
  console_type: ConsoleChoice | '';
}

/** The fields of the form, where an error is shown. */
export type QemuTemplateField = Exclude<keyof QemuTemplateForm, 'boot'>;

export const emptyQemuTemplateForm = (): QemuTemplateForm => ({
  name: '', category: 'guest', boot: 'disk', hda_disk_image: '', kernel_image: '', initrd: '', kernel_command_line: '',
  ram: '', cpus: '', adapters: '', adapter_type: '', console_type: '',
});

/** qemuTemplateForm is the form of an existing template, to edit it. */
export function qemuTemplateForm(t: Template): QemuTemplateForm {
  const r = readTemplate(t);
  const hda = r.str('hda_disk_image');
  return {
    name: t.name, category: t.category, boot: hda === '' && r.str('kernel_image') !== '' ? 'kernel' : 'disk',
    hda_disk_image: hda, kernel_image: r.str('kernel_image'), initrd: r.str('initrd'), kernel_command_line: r.str('kernel_command_line'),
    ram: r.num('ram'), cpus: r.num('cpus'), adapters: r.num('adapters'), adapter_type: r.str('adapter_type'),
    console_type: r.str('console_type') as ConsoleChoice | '',
  };
}

/** The body of POST /v2/templates for such a template, but its type. */
export type QemuTemplateBody = {
  name: string;
  category: Category;
  compute_id: string;
} & Record<string, unknown>;

export type QemuTemplateCheck =
  | { ok: true; body: QemuTemplateBody }
  | { ok: false; errors: Partial<Record<QemuTemplateField, string>> };

const NUMBERS = [
  ['ram', 'RAM must be a whole number of megabytes (for example 512), or empty for the default'],
  ['cpus', 'CPUs must be a whole number (for example 1), or empty for the default'],
  ['adapters', 'Adapters must be a whole number (for example 4), or empty for the default'],
] as const;

/** qemuTemplateProps makes the template's POST body (but its type, which the
 * entry adds) from the form, or says by field what cannot be sent as
 * typed. The template runs on this nodedesk (compute local), where its
 * images are. */
export function qemuTemplateProps(f: QemuTemplateForm): QemuTemplateCheck {
  const errors: Partial<Record<QemuTemplateField, string>> = {};
  const name = f.name.trim();
  if (name === '') errors.name = 'Give the template a name (for example "OpenWrt")';
  const body: QemuTemplateBody = { name, category: f.category, compute_id: 'local' };
  if (f.boot === 'disk') {
    if (f.hda_disk_image === '') errors.hda_disk_image = 'Pick the disk image the VM boots from, or upload one';
    else body.hda_disk_image = f.hda_disk_image;
  } else {
    if (f.kernel_image === '') errors.kernel_image = 'Pick the kernel the VM boots, or upload one';
    else body.kernel_image = f.kernel_image;
    if (f.initrd !== '') body.initrd = f.initrd;
    if (f.kernel_command_line.trim() !== '') body.kernel_command_line = f.kernel_command_line.trim();
  }
  for (const [k, message] of NUMBERS) {
    const v = wholeNumber(f[k]);
    if (v === null) errors[k] = message;
    else if (v !== undefined) body[k] = v;
  }
  if (f.adapter_type !== '') body.adapter_type = f.adapter_type;
  if (f.console_type !== '') body.console_type = f.console_type;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

const TEMPLATE_FIELDS: readonly QemuTemplateField[] = [
  'name', 'category', 'hda_disk_image', 'kernel_image', 'initrd', 'kernel_command_line', 'ram', 'cpus', 'adapters',
  'adapter_type', 'console_type',
];

/** qemuTemplateField is the form field a server error names (its field path,
 * "ram" or "properties.ram"), or null for the top of the form. */
export function qemuTemplateField(path: string | null | undefined): QemuTemplateField | null {
  if (!path) return null;
  const parts = path.split('.');
  const key = parts[0] === 'properties' ? parts[1] : parts[0];
  return (TEMPLATE_FIELDS as readonly string[]).includes(key) ? (key as QemuTemplateField) : null;
}

// ---- A node in the panel ----

/** The properties of a node the panel edits (while it is stopped),
 * as typed. */
export interface QemuNodeForm {
  hda_disk_image: string;
  ram: string;
  cpus: string;
  adapters: string;
  adapter_type: string;
  on_close: string;
  kernel_command_line: string;
  options: string;
}

/** The keys the panel edits, where a server error about them is shown. */
export const QEMU_NODE_FIELDS: readonly (keyof QemuNodeForm)[] = [
  'hda_disk_image', 'ram', 'cpus', 'adapters', 'adapter_type', 'on_close', 'kernel_command_line', 'options',
];

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

export function qemuNodeForm(p: NodeProperties): QemuNodeForm {
  return {
    hda_disk_image: str(p.hda_disk_image),
    ram: num(p.ram),
    cpus: num(p.cpus),
    adapters: num(p.adapters),
    adapter_type: str(p.adapter_type),
    on_close: str(p.on_close),
    kernel_command_line: str(p.kernel_command_line),
    options: str(p.options),
  };
}

export type QemuUpdate =
  | { ok: true; properties: Record<string, unknown> | null }
  | { ok: false; field: keyof QemuNodeForm; message: string };

/** qemuNodeUpdate is the properties part of the node's PUT body: what the
 * form changed (null: nothing), or the field that cannot be sent. */
export function qemuNodeUpdate(p: NodeProperties, f: QemuNodeForm): QemuUpdate {
  const was = qemuNodeForm(p);
  const out: Record<string, unknown> = {};
  for (const [k, message] of NUMBERS) {
    if (f[k] === was[k]) continue;
    const v = wholeNumber(f[k]);
    if (v === null || v === undefined) return { ok: false, field: k, message: message.replace(', or empty for the default', '') };
    out[k] = v;
  }
  for (const k of ['hda_disk_image', 'adapter_type', 'on_close', 'kernel_command_line', 'options'] as const) {
    if (f[k] !== was[k]) out[k] = f[k];
  }
  return { ok: true, properties: Object.keys(out).length > 0 ? out : null };
}

/** One line of a node's properties in words. */
export interface Fact {
  key: string;
  label: string;
  value: string;
}

const DISKS = ['hda', 'hdb', 'hdc', 'hdd'] as const;
const BOOT: Record<string, string> = { c: 'disk', d: 'CD/DVD', n: 'network' };

/** qemuFacts are the properties of a node the panel shows but does not
 * edit: its other disks and files, and how it is made (only those it
 * has); binary names the emulator binary's line. */
export function qemuFacts(p: NodeProperties, binary: string): Fact[] {
  const facts: Fact[] = [];
  const add = (key: string, label: string, value: string) => {
    if (value !== '') facts.push({ key, label, value });
  };
  // An interface none is GNS3's: the emulator's default.
  const iface = (d: string) => (str(p[`${d}_disk_interface`]) === 'none' ? '' : str(p[`${d}_disk_interface`]));
  for (const d of DISKS.slice(1)) {
    const img = str(p[`${d}_disk_image`]);
    add(`${d}_disk_image`, `Disk ${d}`, img && iface(d) ? `${img} (${iface(d)})` : img);
  }
  if (str(p.hda_disk_image)) add('hda_disk_interface', 'Disk hda interface', iface('hda'));
  add('cdrom_image', 'CD/DVD', str(p.cdrom_image));
  add('bios_image', 'BIOS', str(p.bios_image));
  add('kernel_image', 'Kernel', str(p.kernel_image));
  add('initrd', 'Initrd', str(p.initrd));
  const boot = str(p.boot_priority);
  add('boot_priority', 'Boot from', boot ? [...boot].map((c) => BOOT[c] ?? c).join(', then ') : '');
  add('platform', 'Platform', str(p.platform));
  if (typeof p.linked_clone === 'boolean') {
    add('linked_clone', 'Linked clone', p.linked_clone ? 'yes: its disks are copies-on-write of the images' : 'no: it writes to the images themselves');
  }
  add('mac_address', 'MAC address', str(p.mac_address));
  add('qemu_path', binary, str(p.qemu_path));
  return facts;
}

/** onCloseLabel says what a value of on_close does. */
export const onCloseLabel = (v: string): string => ON_CLOSE.find((o) => o.id === v)?.label ?? v;

/** accelerationNote is what the panel says about a guest's speed: the
 * node's own note when it gives one, else the compute's when it runs
 * without KVM; null when there is nothing to say. */
export function accelerationNote(p: NodeProperties, caps: QemuCapabilities | null): string | null {
  const own = str(p.acceleration_note).trim();
  if (own) return own;
  if (!caps || caps.acceleration === 'kvm') return null;
  const note = str(caps.acceleration_note).trim();
  return note || (caps.acceleration === 'tcg' ? 'VMs run slowly here: this machine gives them no hardware acceleration (KVM)' : null);
}
