// A Dynamips router (Cisco IOS, emulated) in the UI: its panel's form
// (image, memory, idle PC, the adapters in its slots and WIC slots, ghost
// IOS) and the PUT body of what the user changed, the slot menus built
// from the server's Dynamips platform catalogue
// (GET /v2/dynamips/platforms), whether a running router wants an
// idle-PC value, and the form of the New IOS router template dialog. Every rule about the values is
// the server's.

import type { Readable } from 'svelte/store';
import { wholeNumber } from '../../lib/numbers';
import type { ImageSource } from '../../lib/stores/images';
import type { DynamipsChassisInfo, DynamipsPlatformInfo, Node, Template } from '../../lib/types';
import { readTemplate } from '../helpers';

/** What the entry loads for the views: the platform catalogue (asked
 * once), the IOS images, a router's idle-PC search and its startup
 * config (read and written through the node files API). */
export interface DynamipsDeps {
  platforms: Readable<Map<string, DynamipsPlatformInfo>>;
  loadPlatforms(): void;
  images: ImageSource;
  /** findIdlePC finds an idle-PC value for a running router; the server
   * keeps it as the router's idlepc (the node's update follows). */
  findIdlePC(pid: string, nid: string): Promise<{ idlepc: string }>;
  /** findImageIdlePC finds an idle-PC value for an IOS image (the server
   * boots a router of it for about 20 s), as GNS3's IOS wizard does. */
  findImageIdlePC(q: { platform: string; image: string; ram: number }): Promise<{ idlepc: string }>;
  readStartupConfig(pid: string, nid: string, path: string): Promise<string>;
  saveStartupConfig(pid: string, nid: string, path: string, text: string): Promise<void>;
}

/** The panel's Dynamips fields, as typed. */
export interface DynamipsNodeForm {
  image: string;
  ram: string;
  nvram: string;
  idlepc: string;
  idlemax: string;
  idlesleep: string;
  npe: string;
  midplane: string;
  /** slot0…slot6 and wic0…wic2: the adapter in each, '' for none. */
  slots: Record<string, string>;
  ghost: boolean;
}

/** The fields a server error may name, in the panel's order. */
export const DYNAMIPS_NODE_FIELDS = ['image', 'ram', 'nvram', 'idlepc', 'idlemax', 'idlesleep', 'npe', 'midplane',
  'slot0', 'slot1', 'slot2', 'slot3', 'slot4', 'slot5', 'slot6', 'wic0', 'wic1', 'wic2', 'ghost'] as const;

const SLOT_KEYS = DYNAMIPS_NODE_FIELDS.filter((k) => k.startsWith('slot') || k.startsWith('wic'));

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

/** dynamipsNodeForm is the form of a router as the server shows it. */
export function dynamipsNodeForm(p: Record<string, unknown>): DynamipsNodeForm {
  const slots: Record<string, string> = {};
  for (const k of SLOT_KEYS) slots[k] = str(p[k]);
  return {
    image: str(p.image),
    ram: num(p.ram),
    nvram: num(p.nvram),
    idlepc: str(p.idlepc),
    idlemax: num(p.idlemax),
    idlesleep: num(p.idlesleep),
    npe: str(p.npe),
    midplane: str(p.midplane),
    slots,
    ghost: p.ghost !== false,
  };
}

export type DynamipsUpdate =
  | { ok: true; properties: Record<string, unknown> | null }
  | { ok: false; field: string; message: string };

/** dynamipsNodeUpdate is the properties body of what differs between the
 * router and the form, or the field that cannot be sent as typed. */
export function dynamipsNodeUpdate(p: Record<string, unknown>, f: DynamipsNodeForm): DynamipsUpdate {
  const was = dynamipsNodeForm(p);
  const out: Record<string, unknown> = {};
  const numbers = [
    ['ram', 'RAM must be a whole number of MB (for example 256)'],
    ['nvram', 'NVRAM must be a whole number of KB (for example 128)'],
    ['idlemax', 'Idle max must be a whole number (for example 500)'],
    ['idlesleep', 'Idle sleep must be a whole number of ms (for example 30)'],
  ] as const;
  for (const [k, message] of numbers) {
    if (f[k].trim() === was[k]) continue;
    const v = wholeNumber(f[k]);
    if (v === null) return { ok: false, field: k, message };
    out[k] = v ?? null; // empty: back to the platform's default
  }
  for (const k of ['image', 'npe', 'midplane'] as const) {
    if (f[k] !== was[k]) out[k] = f[k];
  }
  if (f.idlepc.trim() !== was.idlepc) out.idlepc = f.idlepc.trim();
  for (const k of SLOT_KEYS) {
    if (f.slots[k] !== was.slots[k]) out[k] = f.slots[k] === '' ? null : f.slots[k];
  }
  if (f.ghost !== was.ghost) out.ghost = f.ghost;
  return { ok: true, properties: Object.keys(out).length > 0 ? out : null };
}

/** One slot menu of the panel: the property, its label, the adapters that
 * fit and whether the slot is built in (one fixed adapter). */
export interface SlotRow {
  key: string;
  label: string;
  adapters: string[];
  builtIn: boolean;
}

/** chassisOf is the catalogue's entry for a router's chassis: its own if
 * the platform has it, else the platform's default. */
export function chassisOf(info: DynamipsPlatformInfo | undefined, chassis: unknown): DynamipsChassisInfo | undefined {
  if (!info) return undefined;
  return info.chassis.find((c) => c.name === chassis) ?? info.chassis[0];
}

/** slotRows are the slot and WIC menus of a router of the platform and
 * chassis, from the server's catalogue. */
export function slotRows(info: DynamipsPlatformInfo | undefined, chassis: unknown): SlotRow[] {
  const c = chassisOf(info, chassis);
  if (!info || !c) return [];
  const rows: SlotRow[] = c.slots.map((s) => ({ key: `slot${s.slot}`, label: `Slot ${s.slot}`, adapters: s.adapters, builtIn: s.built_in }));
  for (let i = 0; i < c.wic_slots; i++) rows.push({ key: `wic${i}`, label: `WIC ${i}`, adapters: info.wics, builtIn: false });
  return rows;
}

/** idleless says whether a router runs without an idle-PC value, which
 * makes the emulator spin a CPU core for it. */
export function idleless(n: Pick<Node, 'status' | 'properties'>): boolean {
  return n.status === 'started' && str(n.properties?.idlepc) === '';
}

/** startupConfigPath is where a router's startup config is in its
 * folder (app.DynamipsStartupConfig): configs/i<dynamips_id>_startup-config.cfg;
 * null before the server gave it a number. */
export function startupConfigPath(n: Pick<Node, 'properties'>): string | null {
  const id = n.properties?.dynamips_id;
  return typeof id === 'number' && Number.isInteger(id) && id > 0 ? `configs/i${id}_startup-config.cfg` : null;
}

// ---- The template dialog's form ----

/** guessPlatform reads the platform (and chassis) an IOS image is for
 * from its file name, as Cisco names them (c7200-…, c3640-…, c2621xm-…);
 * null when the name says nothing. The user can always choose. */
export function guessPlatform(filename: string, known: ReadonlyMap<string, DynamipsPlatformInfo>): { platform: string; chassis: string } | null {
  const m = /^c(\d{4})(xm)?/i.exec(filename.split(/[\\/]/).pop() ?? '');
  if (!m) return null;
  const model = m[1];
  const direct = `c${model}`;
  if (known.has(direct)) return { platform: direct, chassis: '' };
  for (const info of known.values()) {
    const c = info.chassis.find((c) => c.name !== '' && c.name.toLowerCase() === (model + (m[2] ?? '')).toLowerCase());
    if (c) return { platform: info.platform, chassis: c.name };
  }
  // Another model of a family (c1710 → c1700): its default chassis.
  for (const info of known.values()) {
    if (info.platform.slice(1, 3) === model.slice(0, 2) && info.chassis.length > 1) return { platform: info.platform, chassis: info.chassis[0].name };
  }
  return null;
}

/** The dialog's form, as typed. */
export interface IOSTemplateForm {
  name: string;
  image: string;
  platform: string;
  chassis: string;
  ram: string;
}

export type IOSTemplateField = keyof IOSTemplateForm;

/** The form the dialog opens with. */
export const emptyIOSTemplateForm = (): IOSTemplateForm => ({ name: '', image: '', platform: '', chassis: '', ram: '' });

/** iosTemplateForm is the form of an existing template, to edit it. */
export function iosTemplateForm(t: Template): IOSTemplateForm {
  const r = readTemplate(t);
  return { name: t.name, image: r.str('image'), platform: r.str('platform'), chassis: r.str('chassis'), ram: r.num('ram') };
}

/** iosTemplateProps makes the template's POST body (but its type, which
 * the entry adds; the server fills the platform's defaults), or says by
 * field what cannot be sent as typed. */
export function iosTemplateProps(f: IOSTemplateForm):
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; errors: Partial<Record<IOSTemplateField, string>> } {
  const errors: Partial<Record<IOSTemplateField, string>> = {};
  const name = f.name.trim();
  if (name === '') errors.name = 'Give the template a name (for example "c7200")';
  if (f.image === '') errors.image = 'Pick the IOS image the routers run, or upload yours';
  if (f.platform === '') errors.platform = 'Choose the router platform the image is for';
  const body: Record<string, unknown> = { name, compute_id: 'local', platform: f.platform, image: f.image };
  if (f.chassis !== '') body.chassis = f.chassis;
  const ram = wholeNumber(f.ram);
  if (ram === null) errors.ram = 'RAM must be a whole number of MB (for example 512)';
  else if (ram !== undefined) body.ram = ram;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

/** iosTemplateField is the form field a server error names, or null. */
export function iosTemplateField(field: string | null | undefined): IOSTemplateField | null {
  const k = (field ?? '').replace(/^properties\./, '');
  return (['name', 'image', 'platform', 'chassis', 'ram'] as const).find((x) => x === k) ?? null;
}
