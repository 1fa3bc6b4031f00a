// An IOU device (Cisco IOS on Unix: a Linux program) in the UI: its
// panel's form (image, adapters, memory, keepalives) and the PUT body of
// what the user changed, the facts it shows but does not edit, its two
// config files, the layer an image is for read from its file name (L2:
// a switch, L3: a router), the form of the New IOU template dialog with
// GNS3 2.2's defaults for each layer, and the licence of the settings
// dialog. The properties are GNS3's keys; the bounds checked here are
// GNS3's, every other rule about the values is the server's.

import type { ConsoleChoice } from '../../lib/nodetypes';
import { wholeNumber } from '../../lib/numbers';
import type { Category } from '../../lib/categories';
import type { ImageSource } from '../../lib/stores/images';
import type { NodeProperties, Template } from '../../lib/types';
import { readTemplate } from '../helpers';

/** The licence as the server keeps it (GET and PUT /v2/iou_license). */
export interface Licence {
  iourc_content: string;
  license_check: boolean;
}

/** What the entry gives the views: the images folder, a device's config
 * files (through the node files API), and the licence. */
export interface IouDeps {
  images: ImageSource;
  /** readConfig reads a config file of a device's folder; '' when it has none yet. */
  readConfig(pid: string, nid: string, path: string): Promise<string>;
  saveConfig(pid: string, nid: string, path: string, text: string): Promise<void>;
  readLicence(): Promise<Licence>;
  saveLicence(l: Licence): Promise<Licence>;
}

/** The most adapters a device has, Ethernet and serial together (and
 * each kind alone), as GNS3 allows. */
export const MAX_ADAPTERS = 16;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

export type AdapterField = 'ethernet_adapters' | 'serial_adapters';

export type AdaptersCheck =
  | { ok: true; ethernet_adapters: number; serial_adapters: number }
  | { ok: false; field: AdapterField; message: string };

/** checkAdapters reads the two adapter counts as typed: each a whole
 * number from 0 to 16, and 16 at most together. blame is the field a too
 * large total is said at (the one the user changed). */
export function checkAdapters(ethernet: string, serial: string, blame: AdapterField = 'serial_adapters'): AdaptersCheck {
  const e = wholeNumber(ethernet);
  if (e === null || e === undefined || e < 0 || e > MAX_ADAPTERS) {
    return { ok: false, field: 'ethernet_adapters', message: `Ethernet adapters must be a whole number from 0 to ${MAX_ADAPTERS} (each has 4 ports)` };
  }
  const s = wholeNumber(serial);
  if (s === null || s === undefined || s < 0 || s > MAX_ADAPTERS) {
    return { ok: false, field: 'serial_adapters', message: `Serial adapters must be a whole number from 0 to ${MAX_ADAPTERS} (each has 4 ports)` };
  }
  if (e + s > MAX_ADAPTERS) {
    return { ok: false, field: blame, message: `A device has ${MAX_ADAPTERS} adapters at most, Ethernet and serial together (here ${e + s}): lower one of them` };
  }
  return { ok: true, ethernet_adapters: e, serial_adapters: s };
}

const MEMORY = [
  ['ram', 'RAM must be a whole number of MB (for example 1024)'],
  ['nvram', 'NVRAM must be a whole number of KB (for example 256)'],
] as const;

/** readMemory reads RAM or NVRAM as typed: a whole number above 0. */
function readMemory(typed: string): number | null {
  const v = wholeNumber(typed);
  return v === null || v === undefined || v < 1 ? null : v;
}

// ---- A device in the panel ----

/** The panel's fields of a device, as typed. */
export interface IouNodeForm {
  /** The image's file name. */
  path: string;
  ethernet_adapters: string;
  serial_adapters: string;
  ram: string;
  nvram: string;
  l1_keepalives: boolean;
  /** RAM and NVRAM come from the image: the two fields are not used. */
  use_default_iou_values: boolean;
}

/** The keys the panel edits, where a server error about one is shown. */
export const IOU_NODE_FIELDS = ['path', 'ethernet_adapters', 'serial_adapters', 'ram', 'nvram', 'l1_keepalives', 'use_default_iou_values'] as const;

/** iouNodeForm is the form of a device as the server shows it. */
export function iouNodeForm(p: NodeProperties): IouNodeForm {
  return {
    path: str(p.path),
    ethernet_adapters: num(p.ethernet_adapters),
    serial_adapters: num(p.serial_adapters),
    ram: num(p.ram),
    nvram: num(p.nvram),
    l1_keepalives: p.l1_keepalives === true,
    use_default_iou_values: p.use_default_iou_values === true,
  };
}

export type IouUpdate =
  | { ok: true; properties: Record<string, unknown> | null }
  | { ok: false; field: string; message: string };

/** iouNodeUpdate is the properties body of what differs between the
 * device and the form (null: nothing), or the field that cannot be sent
 * as typed. */
export function iouNodeUpdate(p: NodeProperties, f: IouNodeForm): IouUpdate {
  const was = iouNodeForm(p);
  const out: Record<string, unknown> = {};
  if (f.path !== was.path) {
    if (f.path === '') return { ok: false, field: 'path', message: 'Pick the image the device runs, or upload one' };
    out.path = f.path;
  }
  const ethernetChanged = f.ethernet_adapters.trim() !== was.ethernet_adapters;
  const serialChanged = f.serial_adapters.trim() !== was.serial_adapters;
  if (ethernetChanged || serialChanged) {
    const a = checkAdapters(f.ethernet_adapters, f.serial_adapters, serialChanged ? 'serial_adapters' : 'ethernet_adapters');
    if (!a.ok) return a;
    if (ethernetChanged) out.ethernet_adapters = a.ethernet_adapters;
    if (serialChanged) out.serial_adapters = a.serial_adapters;
  }
  for (const [k, message] of MEMORY) {
    if (f[k].trim() === was[k]) continue;
    const v = readMemory(f[k]);
    if (v === null) return { ok: false, field: k, message };
    out[k] = v;
  }
  if (f.l1_keepalives !== was.l1_keepalives) out.l1_keepalives = f.l1_keepalives;
  if (f.use_default_iou_values !== was.use_default_iou_values) out.use_default_iou_values = f.use_default_iou_values;
  return { ok: true, properties: Object.keys(out).length > 0 ? out : null };
}

/** One line of a device's properties the panel shows but does not edit. */
export interface Fact {
  key: string;
  label: string;
  value: string;
}

/** iouFacts are what the server sets: the number the device is known by
 * on this machine, and the image's checksum (only those it has). */
export function iouFacts(p: NodeProperties): Fact[] {
  const facts: Fact[] = [];
  const id = num(p.application_id);
  if (id !== '') facts.push({ key: 'application_id', label: 'Application ID', value: id });
  const md5 = str(p.md5sum);
  if (md5 !== '') facts.push({ key: 'md5sum', label: 'Image MD5', value: md5 });
  return facts;
}

/** The config files of a device's folder, as GNS3 2.2 names them: it
 * starts with them, and writes what its NVRAM holds back into them when
 * it stops. */
export const CONFIG_FILES = [
  { key: 'startup', path: 'startup-config.cfg', label: 'Startup config' },
  { key: 'private', path: 'private-config.cfg', label: 'Private config' },
] as const;

/** missingAsEmpty is a read of a file that answers '' when the server
 * says there is none (404): a device made without a config has no file
 * until one is saved or it stops. */
export async function missingAsEmpty(read: Promise<string>): Promise<string> {
  try {
    return await read;
  } catch (err) {
    if (typeof err === 'object' && err !== null && (err as { status?: unknown }).status === 404) return '';
    throw err;
  }
}

// ---- Images: the layer an image is for ----

/** What an image runs: L2 (a switch) or L3 (a router). */
export type Layer = 'l2' | 'l3';

/** What a template of each layer is made with, as the GNS3 2.2 wizard
 * makes it: its adapters, base startup config, symbol and category. */
export const LAYERS: Record<Layer, {
  label: string;
  ethernet_adapters: number;
  serial_adapters: number;
  startup_config: string;
  symbol: string;
  category: Category;
}> = {
  l3: {
    label: 'L3 image: a router', ethernet_adapters: 2, serial_adapters: 2,
    startup_config: 'iou_l3_base_startup-config.txt', symbol: ':/symbols/router.svg', category: 'router',
  },
  l2: {
    label: 'L2 image: a switch', ethernet_adapters: 4, serial_adapters: 0,
    startup_config: 'iou_l2_base_startup-config.txt', symbol: ':/symbols/multilayer_switch.svg', category: 'switch',
  },
};

const baseName = (path: string): string => path.split(/[\\/]/).pop() ?? '';

/** guessLayer reads the layer an image is for from its file name: "l2"
 * in it, in any case, is a switch (i86bi-linux-l2-…, …L2-IpBaseK9…),
 * anything else a router. The user can always choose. */
export const guessLayer = (filename: string): Layer => (/l2/i.test(baseName(filename)) ? 'l2' : 'l3');

/** templateName is the name a template of an image gets until the user
 * types one: its file name without its extension. */
export const templateName = (path: string): string => baseName(path.trim()).replace(/\.(bin|image|elf)$/i, '');

// ---- The template dialog's form ----

/** The dialog's form, as typed. */
export interface IouTemplateForm {
  name: string;
  path: string;
  layer: Layer;
  ethernet_adapters: string;
  serial_adapters: string;
  ram: string;
  nvram: string;
  use_default_iou_values: boolean;
  l1_keepalives: boolean;
  console_type: ConsoleChoice;
}

export type IouTemplateField = Exclude<keyof IouTemplateForm, 'layer'>;

/** The template defaults of GNS3 2.2 beside the layer's (IOU_DEVICE_SETTINGS). */
export const TEMPLATE_DEFAULTS = { ram: 1024, nvram: 256, use_default_iou_values: false, l1_keepalives: false, private_config: '', console_type: 'telnet' } as const;

/** withLayer is the form for another layer: its adapters are the layer's. */
export const withLayer = (f: IouTemplateForm, layer: Layer): IouTemplateForm => ({
  ...f,
  layer,
  ethernet_adapters: String(LAYERS[layer].ethernet_adapters),
  serial_adapters: String(LAYERS[layer].serial_adapters),
});

/** The form the dialog opens with: an L3 image's, GNS3's defaults. */
export const emptyIouTemplateForm = (): IouTemplateForm => withLayer({
  name: '', path: '', layer: 'l3', ethernet_adapters: '', serial_adapters: '',
  ram: String(TEMPLATE_DEFAULTS.ram), nvram: String(TEMPLATE_DEFAULTS.nvram),
  use_default_iou_values: TEMPLATE_DEFAULTS.use_default_iou_values, l1_keepalives: TEMPLATE_DEFAULTS.l1_keepalives,
  console_type: TEMPLATE_DEFAULTS.console_type,
}, 'l3');

/** iouTemplateForm is the form of an existing template, to edit it. */
export function iouTemplateForm(t: Template): IouTemplateForm {
  const r = readTemplate(t);
  const path = r.str('path');
  return {
    name: t.name, path, layer: guessLayer(path), ethernet_adapters: r.num('ethernet_adapters'), serial_adapters: r.num('serial_adapters'),
    ram: r.num('ram'), nvram: r.num('nvram'), use_default_iou_values: r.bool('use_default_iou_values'), l1_keepalives: r.bool('l1_keepalives'),
    console_type: (r.str('console_type') || TEMPLATE_DEFAULTS.console_type) as ConsoleChoice,
  };
}

/** imagePicked is the form once an image is picked: the layer its name
 * says, with that layer's adapters, and a name that follows the image
 * until the user types one of their own. */
export function imagePicked(f: IouTemplateForm, before: string, path: string): IouTemplateForm {
  const named = f.name.trim() !== '' && f.name !== templateName(before);
  const next = path === '' ? { ...f } : withLayer(f, guessLayer(path));
  return { ...next, path, name: named ? f.name : templateName(path) };
}

/** iouTemplateProps makes the template's POST body (but its type and its
 * name format, which the entry adds), or says by field what cannot be
 * sent as typed. It holds every key GNS3's wizard sends: the layer's and
 * GNS3's defaults. The template runs on this nodedesk (compute local),
 * where its images are. */
export function iouTemplateProps(f: IouTemplateForm):
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; errors: Partial<Record<IouTemplateField, string>> } {
  const errors: Partial<Record<IouTemplateField, string>> = {};
  const name = f.name.trim();
  if (name === '') errors.name = 'Give the template a name (for example "L3 router")';
  if (f.path === '') errors.path = 'Pick the image the devices run, or upload yours';
  const a = checkAdapters(f.ethernet_adapters, f.serial_adapters);
  if (!a.ok) errors[a.field] = a.message;
  const memory: Record<string, number> = {};
  for (const [k, message] of MEMORY) {
    const v = readMemory(f[k]);
    if (v === null) errors[k] = message;
    else memory[k] = v;
  }
  if (!a.ok || Object.keys(errors).length > 0) return { ok: false, errors };
  const layer = LAYERS[f.layer];
  return {
    ok: true,
    body: {
      name,
      compute_id: 'local',
      path: f.path,
      ethernet_adapters: a.ethernet_adapters,
      serial_adapters: a.serial_adapters,
      ram: memory.ram,
      nvram: memory.nvram,
      use_default_iou_values: f.use_default_iou_values,
      l1_keepalives: f.l1_keepalives,
      startup_config: layer.startup_config,
      private_config: TEMPLATE_DEFAULTS.private_config,
      console_type: f.console_type,
      symbol: layer.symbol,
      category: layer.category,
    },
  };
}

const TEMPLATE_FIELDS: readonly IouTemplateField[] = [
  'name', 'path', 'ethernet_adapters', 'serial_adapters', 'ram', 'nvram', 'use_default_iou_values', 'l1_keepalives', 'console_type',
];

/** iouTemplateField is the form field a server error names ("ram" or
 * "properties.ram"), or null for the top of the form. */
export function iouTemplateField(path: string | null | undefined): IouTemplateField | null {
  const k = (path ?? '').replace(/^properties\./, '');
  return TEMPLATE_FIELDS.find((x) => x === k) ?? null;
}

// ---- The licence ----

/** licenceBody is the PUT body of the licence as typed: the iourc text
 * trimmed, with Unix line ends, as GNS3 sends it. */
export const licenceBody = (text: string, check: boolean): Licence => ({
  iourc_content: text.trim().replace(/\r\n?/g, '\n'),
  license_check: check,
});
