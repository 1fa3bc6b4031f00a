// Docker containers as the page shows and edits them: the images of the
// Docker Engine, the form of the New Docker template dialog
// and its POST /v2/templates body, and a Docker node's properties in the
// node panel (GNS3's docker keys) and custom adapters; its aux and web
// consoles are lib/sideconsoles.ts. The forms check only that what was
// typed can be sent (a whole number where the body wants one, an image to
// run); every rule about the values is the server's, whose 400 names the
// field.

import type { EngineImages } from '../../lib/stores/images';
import type { ConsoleChoice } from '../../lib/nodetypes';
import { wholeNumber } from '../../lib/numbers';
import type { Category } from '../../lib/categories';
import { auxPort } from '../../lib/sideconsoles';
import { readTemplate, same } from '../helpers';
import type { CustomAdapter, DockerImage as Image, Node, NodeProperties, Template } from '../../lib/types';

/** One image of the engine, as its images list gives it. */
export type DockerImage = Image;

/** What the entry loads for the views: the engine's images. */
export interface DockerDeps {
  images: EngineImages;
}

/** dockerImages reads the images list's answer: its `image` names, each
 * once, in the engine's order. */
export function dockerImages(answer: readonly unknown[]): DockerImage[] {
  const seen = new Set<string>();
  const out: DockerImage[] = [];
  for (const x of answer) {
    const image = x && typeof x === 'object' ? (x as { image?: unknown }).image : undefined;
    if (typeof image !== 'string' || image === '' || seen.has(image)) continue;
    seen.add(image);
    out.push({ image });
  }
  return out;
}

/** templateName is the name a template gets from its image, as the GNS3
 * wizard names it: the image's repository without its tag or digest, '/'
 * turned into '-' (nodedesk-test/busybox:latest → nodedesk-test-busybox);
 * a registry host in front (ghcr.io/…, localhost:5000/…) and Docker Hub's
 * library/ are left out too, which GNS3 keeps. */
export function templateName(image: string): string {
  let ref = image.trim();
  const at = ref.indexOf('@');
  if (at >= 0) ref = ref.slice(0, at);
  const colon = ref.lastIndexOf(':');
  if (colon > ref.lastIndexOf('/')) ref = ref.slice(0, colon);
  let parts = ref.split('/').filter((p) => p !== '');
  if (parts.length > 1 && (/[.:]/.test(parts[0]) || parts[0] === 'localhost')) parts = parts.slice(1);
  if (parts.length > 1 && parts[0] === 'library') parts = parts.slice(1);
  return parts.join('-');
}

/** followName is the form's name once its image changes: a name the user
 * typed stays; an empty one, or the one the old image gave, follows the
 * new image. */
export function followName(oldImage: string, newImage: string, name: string): string {
  return name.trim() === '' || name === templateName(oldImage) ? templateName(newImage) : name;
}

/** tidyLines is a multi-line field as sent: each line trimmed, blank lines
 * left out (environment: NAME=value lines; extra hosts: name:address). */
export function tidyLines(text: string): string {
  return text.split(/\r?\n/).map((l) => l.trim()).filter((l) => l !== '').join('\n');
}

/** volumeList is the extra volumes field (one path a line) as the array
 * the body carries; volumeText the other way. */
export const volumeList = (text: string): string[] => (text.trim() === '' ? [] : tidyLines(text).split('\n'));
export const volumeText = (v: unknown): string =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string').join('\n') : '';

// ---- The template dialog's form ----

/** The dialog's form, as typed. */
export interface DockerTemplateForm {
  image: string;
  /** '' takes the name the image gives (templateName). */
  name: string;
  category: Category;
  /** A number as typed; empty leaves the server's default (1). */
  adapters: string;
  start_command: string;
  /** NAME=value, one a line. */
  environment: string;
  /** '' leaves the server's default. */
  console_type: ConsoleChoice | '';
  /** name:address, one a line (added to the container's /etc/hosts). */
  extra_hosts: string;
  /** Paths in the container kept across restarts, one a line. */
  extra_volumes: string;
}

/** The fields of the form, where an error is shown. */
export type DockerTemplateField = keyof DockerTemplateForm;

export const emptyDockerTemplateForm = (): DockerTemplateForm => ({
  image: '', name: '', category: 'guest', adapters: '', start_command: '', environment: '', console_type: '', extra_hosts: '', extra_volumes: '',
});

/** dockerTemplateForm is the form of an existing template, to edit it. */
export function dockerTemplateForm(t: Template): DockerTemplateForm {
  const r = readTemplate(t);
  return {
    image: r.str('image'), name: t.name, category: t.category, adapters: r.num('adapters'), start_command: r.str('start_command'),
    environment: r.str('environment'), console_type: r.str('console_type') as ConsoleChoice | '', extra_hosts: r.str('extra_hosts'),
    extra_volumes: r.list('extra_volumes').filter((v) => typeof v === 'string').join('\n'),
  };
}

/** The body of POST /v2/templates for such a template, but its type. */
export type DockerTemplateBody = {
  name: string;
  image: string;
  category: Category;
  compute_id: string;
} & Record<string, unknown>;

export type DockerTemplateCheck =
  | { ok: true; body: DockerTemplateBody }
  | { ok: false; errors: Partial<Record<DockerTemplateField, string>> };

/** dockerTemplateProps makes the template's POST body (but its type,
 * which the entry adds) from the form, with only what was given (the
 * server fills in GNS3's defaults), or says by field what cannot be sent.
 * The template runs on this nodedesk (compute local), whose engine lists
 * the images. */
export function dockerTemplateProps(f: DockerTemplateForm): DockerTemplateCheck {
  const errors: Partial<Record<DockerTemplateField, string>> = {};
  const image = f.image.trim();
  const name = f.name.trim() || templateName(image);
  if (image === '') errors.image = 'Pick an image from the list, or type the name of one (for example alpine:latest)';
  if (name === '' && image !== '') errors.name = 'Give the template a name (for example "Alpine")';
  const body: DockerTemplateBody = { name, image, category: f.category, compute_id: 'local' };
  const adapters = wholeNumber(f.adapters);
  if (adapters === null) errors.adapters = 'Adapters must be a whole number (for example 2), or empty for one';
  else if (adapters !== undefined) body.adapters = adapters;
  if (f.start_command.trim() !== '') body.start_command = f.start_command.trim();
  const env = tidyLines(f.environment);
  if (env !== '') body.environment = env;
  if (f.console_type !== '') body.console_type = f.console_type;
  const hosts = tidyLines(f.extra_hosts);
  if (hosts !== '') body.extra_hosts = hosts;
  const volumes = volumeList(f.extra_volumes);
  if (volumes.length > 0) body.extra_volumes = volumes;
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, body };
}

const TEMPLATE_FIELDS: readonly DockerTemplateField[] = [
  'image', 'name', 'category', 'adapters', 'start_command', 'environment', 'console_type', 'extra_hosts', 'extra_volumes',
];

/** dockerTemplateField is the form field a server error names (its field
 * path, "adapters", "properties.adapters" or "extra_volumes.0"), or null
 * for the top of the form. */
export function dockerTemplateField(path: string | null | undefined): DockerTemplateField | null {
  if (!path) return null;
  const parts = path.split('.');
  const key = parts[0] === 'properties' ? parts[1] : parts[0];
  return (TEMPLATE_FIELDS as readonly string[]).includes(key) ? (key as DockerTemplateField) : null;
}

// ---- A node in the panel ----

/** One row of the custom adapters table: adapter n's port name and MAC
 * address, as typed ('' is the default). */
export interface AdapterRow {
  adapter_number: number;
  port_name: string;
  mac_address: string;
  /** What else the adapter's entry holds (kept as it is). */
  rest: Omit<CustomAdapter, 'adapter_number' | 'port_name' | 'mac_address'>;
}

/** The properties of a node the panel edits (while it is stopped),
 * as typed. */
export interface DockerNodeForm {
  image: string;
  adapters: string;
  start_command: string;
  environment: string;
  extra_hosts: string;
  extra_volumes: string;
  console_resolution: string;
  console_http_port: string;
  console_http_path: string;
  mac_address: string;
  /** One row per adapter of the node as it is. */
  custom_adapters: AdapterRow[];
}

/** The keys the panel edits, where a server error about them is shown. */
export const DOCKER_NODE_FIELDS: readonly (keyof DockerNodeForm)[] = [
  'image', 'adapters', 'start_command', 'environment', 'extra_hosts', 'extra_volumes', 'console_resolution', 'console_http_port',
  'console_http_path', 'mac_address', 'custom_adapters',
];

/** Screen sizes offered for a VNC console (any WIDTHxHEIGHT may be typed). */
export const RESOLUTIONS = ['2560x1440', '1920x1080', '1680x1050', '1440x900', '1366x768', '1280x1024', '1280x800', '1024x768', '800x600', '640x480'] as const;

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const num = (v: unknown): string => (typeof v === 'number' && Number.isFinite(v) ? String(v) : '');

/** adapterRows are the rows of the custom adapters table for n adapters:
 * each adapter's custom entry, or an empty row. */
export function adapterRows(custom: readonly CustomAdapter[] | null | undefined, n: number): AdapterRow[] {
  const rows: AdapterRow[] = [];
  for (let a = 0; a < n; a++) {
    const c = (custom ?? []).find((x) => x.adapter_number === a);
    const { adapter_number: _n, port_name, mac_address, ...rest } = c ?? { adapter_number: a };
    rows.push({ adapter_number: a, port_name: port_name ?? '', mac_address: mac_address ?? '', rest });
  }
  return rows;
}

/** customAdapters are the table's rows as the wire's custom_adapters:
 * only the adapters with something set. */
export function customAdapters(rows: readonly AdapterRow[]): CustomAdapter[] {
  const out: CustomAdapter[] = [];
  for (const r of rows) {
    const c: CustomAdapter = { ...r.rest, adapter_number: r.adapter_number };
    if (r.port_name.trim() !== '') c.port_name = r.port_name.trim();
    if (r.mac_address.trim() !== '') c.mac_address = r.mac_address.trim();
    if (Object.keys(c).length > 1) out.push(c);
  }
  return out;
}

/** adapterCount is how many adapters a node has: its adapters property,
 * or one (GNS3's default). */
const adapterCount = (p: NodeProperties): number =>
  typeof p.adapters === 'number' && Number.isInteger(p.adapters) && p.adapters >= 0 ? p.adapters : 1;

export function dockerNodeForm(n: Pick<Node, 'properties' | 'custom_adapters'>): DockerNodeForm {
  const p = n.properties ?? {};
  return {
    image: str(p.image),
    adapters: num(p.adapters),
    start_command: str(p.start_command),
    environment: str(p.environment),
    extra_hosts: str(p.extra_hosts),
    extra_volumes: volumeText(p.extra_volumes),
    console_resolution: str(p.console_resolution),
    console_http_port: num(p.console_http_port),
    console_http_path: str(p.console_http_path),
    mac_address: str(p.mac_address),
    custom_adapters: adapterRows(n.custom_adapters, adapterCount(p)),
  };
}

/** tableRows are the rows the table shows for the adapters typed: the
 * form's rows, cut or grown to that many (while the number is not a
 * whole one, the rows as they are). */
export function tableRows(f: DockerNodeForm): AdapterRow[] {
  const n = wholeNumber(f.adapters);
  if (typeof n !== 'number' || n < 0 || n > 99) return f.custom_adapters;
  const have = f.custom_adapters.slice(0, n);
  for (let a = have.length; a < n; a++) have.push({ adapter_number: a, port_name: '', mac_address: '', rest: {} });
  return have;
}

export type DockerUpdate =
  | { ok: true; properties: Record<string, unknown> | null; custom_adapters: CustomAdapter[] | null }
  | { ok: false; field: keyof DockerNodeForm; message: string };

/** dockerNodeUpdate is what the node's PUT body gets from the form: the
 * properties it changed and the custom adapters when they changed (null:
 * nothing), or the field that cannot be sent. The text fields go as typed;
 * the extra volumes as their list; an empty MAC address as null (a MAC
 * chosen by nodedesk). */
export function dockerNodeUpdate(n: Pick<Node, 'properties' | 'custom_adapters'>, f: DockerNodeForm): DockerUpdate {
  const was = dockerNodeForm(n);
  const out: Record<string, unknown> = {};
  const numbers = [
    ['adapters', 'Adapters must be a whole number (for example 2)'],
    ['console_http_port', 'The HTTP port must be a whole number (for example 80)'],
  ] as const;
  for (const [k, message] of numbers) {
    if (f[k] === was[k]) continue;
    const v = wholeNumber(f[k]);
    if (v === null || v === undefined) return { ok: false, field: k, message };
    out[k] = v;
  }
  for (const k of ['image', 'start_command', 'environment', 'extra_hosts', 'console_resolution', 'console_http_path'] as const) {
    if (f[k] !== was[k]) out[k] = f[k];
  }
  if (volumeList(f.extra_volumes).join('\n') !== volumeList(was.extra_volumes).join('\n')) out.extra_volumes = volumeList(f.extra_volumes);
  if (f.mac_address.trim() !== was.mac_address) out.mac_address = f.mac_address.trim() === '' ? null : f.mac_address.trim();
  const after = customAdapters(tableRows(f));
  const before = customAdapters(was.custom_adapters);
  return {
    ok: true,
    properties: Object.keys(out).length > 0 ? out : null,
    custom_adapters: same(after, before) ? null : after,
  };
}

// ---- Its facts ----

/** One line of a node's properties in words. */
export interface Fact {
  key: string;
  label: string;
  value: string;
}

/** dockerFacts are the properties of a node the panel shows but
 * does not edit (only those it has). */
export function dockerFacts(n: Pick<Node, 'properties' | 'console_host'>): Fact[] {
  const p = n.properties ?? {};
  const facts: Fact[] = [];
  const aux = auxPort(n);
  if (aux !== null) facts.push({ key: 'aux', label: 'Aux console', value: `port ${aux} (a shell in the container)` });
  const cid = str(p.container_id);
  if (cid) facts.push({ key: 'container_id', label: 'Container', value: cid.slice(0, 12) });
  const usage = str(p.usage).trim();
  if (usage) facts.push({ key: 'usage', label: 'Usage', value: usage });
  return facts;
}
