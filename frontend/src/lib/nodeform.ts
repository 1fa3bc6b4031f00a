// The property panel's form: made from a node, turned back into the one
// PUT body that holds exactly what the user changed. It checks only that
// what was typed can be sent (a number where the body wants one); every
// rule about the values is the server's, whose 400 names the field.

import { assertNever } from './assert';
import { DOCKER_NODE_FIELDS, dockerNodeForm, dockerNodeUpdate, noDockerForm, type DockerNodeForm } from '../nodekinds/docker/model';
import { DYNAMIPS_NODE_FIELDS, dynamipsNodeForm, dynamipsNodeUpdate, type DynamipsNodeForm } from '../nodekinds/dynamips/model';
import { consoleChoice, consoleValue, typeInfo, type ConsoleChoice } from './nodetypes';
import { mappingsToRows, rowsToMappings, type FrRow } from './framerelay';
import { QEMU_NODE_FIELDS, qemuNodeForm, qemuNodeUpdate, type QemuNodeForm } from '../nodekinds/qemu/model';
import { toWireSwitchPorts } from './switchports';
import type { CloudPort, CustomAdapter, EthernetHubPort, EthernetSwitchPort, Node, NodeUpdate } from './types';

export interface NodeForm {
  name: string;
  /** Console TCP port; null leaves the choice to nodedesk. */
  console: number | null;
  console_type: ConsoleChoice;
  symbol: string;
  label: string;
  x: number | null;
  y: number | null;
  z: number | null;
  startup_script: string;
  switchPorts: EthernetSwitchPort[];
  hubPorts: EthernetHubPort[];
  frRows: FrRow[];
  cloudPorts: CloudPort[];
  /** A NAT node's allow_host_loopback: the lab reaches services that
   * listen only on the host's 127.0.0.1 (off unless the node says true). */
  hostLoopback: boolean;
  /** A QEMU node's common properties (qemu.ts). */
  qemu: QemuNodeForm;
  /** A Docker node's properties and custom adapters (docker.ts). */
  docker: DockerNodeForm;
  /** A Dynamips router's properties (dynamips.ts). */
  dynamips: DynamipsNodeForm;
}

/** The NAT panel's words for allow_host_loopback: what the box lets the
 * lab do, and what it does not without it. */
export const NAT_LOOPBACK_LABEL = 'Let the lab reach services that listen only on this computer (127.0.0.1)';
export const NAT_LOOPBACK_HINT =
  'Off, the lab reaches this computer at 192.168.122.1 only where a service listens on its network addresses, as in GNS3. nodedesk\'s own API stays out of reach either way.';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T;

export function formFromNode(n: Node): NodeForm {
  const p = n.properties ?? {};
  const editor = typeInfo(n.node_type).editor;
  const mapping = Array.isArray(p.ports_mapping) ? p.ports_mapping : [];
  return {
    name: n.name,
    console: n.console,
    console_type: consoleChoice(n.console_type),
    symbol: n.symbol ?? '',
    label: n.label?.text ?? '',
    x: n.x,
    y: n.y,
    z: n.z,
    startup_script: typeof p.startup_script === 'string' ? p.startup_script : '',
    switchPorts: editor === 'switch' ? clone(mapping as EthernetSwitchPort[]).map((sp) => ({ ...sp, ethertype: sp.ethertype || null })) : [],
    hubPorts: editor === 'hub' ? clone(mapping as EthernetHubPort[]) : [],
    frRows: editor === 'frame_relay' ? mappingsToRows(p.mappings) : [],
    cloudPorts: editor === 'cloud' ? clone(mapping as CloudPort[]) : [],
    hostLoopback: editor === 'nat' && p.allow_host_loopback === true,
    qemu: qemuNodeForm(editor === 'qemu' ? p : {}),
    docker: editor === 'docker' ? dockerNodeForm(n) : noDockerForm(),
    dynamips: dynamipsNodeForm(editor === 'dynamips' ? p : {}),
  };
}

export type BuildResult =
  | { ok: true; body: NodeUpdate; changed: boolean }
  | { ok: false; field: string; row: number | null; message: string };

const isInt = (v: number | null): v is number => typeof v === 'number' && Number.isInteger(v);
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** buildUpdate makes the PUT body of what differs between node and form,
 * or says which field cannot be sent as typed. */
export function buildUpdate(n: Node, f: NodeForm): BuildResult {
  const body: NodeUpdate = {};
  if (f.name !== n.name) body.name = f.name;

  // The console fields can change only where the panel offers them.
  const ct = consoleValue(f.console_type);
  if (ct !== n.console_type) body.console_type = ct;
  if (ct !== null && f.console !== n.console) {
    if (f.console !== null && !isInt(f.console)) {
      return { ok: false, field: 'console', row: null, message: 'The console port must be a whole number (for example 5000), or empty to let nodedesk choose' };
    }
    body.console = f.console;
  }

  const symbol = f.symbol.trim();
  if (symbol !== (n.symbol ?? '')) body.symbol = symbol === '' ? null : symbol;
  if (f.label !== (n.label?.text ?? '')) body.label = { ...n.label, text: f.label };

  for (const k of ['x', 'y', 'z'] as const) {
    if (f[k] === n[k]) continue;
    const v = f[k];
    if (!isInt(v)) return { ok: false, field: k, row: null, message: `${k} must be a whole number` };
    body[k] = v;
  }

  const props = propertiesUpdate(n, f);
  if (!props.ok) return props;
  if (props.properties) body.properties = props.properties;
  if (props.custom_adapters) body.custom_adapters = props.custom_adapters;
  return { ok: true, body, changed: Object.keys(body).length > 0 };
}

type PropsResult =
  | { ok: true; properties: Record<string, unknown> | null; custom_adapters?: CustomAdapter[] | null }
  | { ok: false; field: string; row: number | null; message: string };

function propertiesUpdate(n: Node, f: NodeForm): PropsResult {
  const p = n.properties ?? {};
  const editor = typeInfo(n.node_type).editor;
  switch (editor) {
    case 'vpcs': {
      const before = typeof p.startup_script === 'string' ? p.startup_script : '';
      return { ok: true, properties: f.startup_script === before ? null : { startup_script: f.startup_script } };
    }
    case 'switch': {
      for (let i = 0; i < f.switchPorts.length; i++) {
        const sp = f.switchPorts[i];
        if (!Number.isInteger(Number(sp.port_number)) || String(sp.port_number) === '') {
          return { ok: false, field: 'ports_mapping', row: i, message: `Row ${i + 1}: the port number must be a whole number` };
        }
        if (sp.vlan !== undefined && sp.vlan !== null && !Number.isInteger(Number(sp.vlan))) {
          return { ok: false, field: 'ports_mapping', row: i, message: `Row ${i + 1}: the VLAN must be a whole number` };
        }
      }
      const after = toWireSwitchPorts(f.switchPorts);
      const before = toWireSwitchPorts((p.ports_mapping ?? []) as EthernetSwitchPort[]);
      return { ok: true, properties: same(after, before) ? null : { ports_mapping: after } };
    }
    case 'hub': {
      const wire = (rows: readonly EthernetHubPort[]) => rows.map((h) => ({ name: h.name, port_number: Number(h.port_number) }));
      const after = wire(f.hubPorts);
      return { ok: true, properties: same(after, wire((p.ports_mapping ?? []) as EthernetHubPort[])) ? null : { ports_mapping: after } };
    }
    case 'frame_relay': {
      const r = rowsToMappings(f.frRows);
      if (!r.ok) return { ok: false, field: 'mappings', row: r.row, message: r.message };
      const before = rowsToMappings(mappingsToRows(p.mappings));
      return { ok: true, properties: before.ok && same(r.mappings, before.mappings) ? null : { mappings: r.mappings } };
    }
    case 'cloud': {
      const after = f.cloudPorts.map((c) => ({ ...c, port_number: Number(c.port_number) }));
      return { ok: true, properties: same(after, p.ports_mapping ?? []) ? null : { ports_mapping: after } };
    }
    case 'nat': {
      const before = p.allow_host_loopback === true;
      return { ok: true, properties: f.hostLoopback === before ? null : { allow_host_loopback: f.hostLoopback } };
    }
    case 'qemu': {
      const r = qemuNodeUpdate(p, f.qemu);
      return r.ok ? r : { ok: false, field: r.field, row: null, message: r.message };
    }
    case 'docker': {
      const r = dockerNodeUpdate(n, f.docker);
      return r.ok ? r : { ok: false, field: r.field, row: null, message: r.message };
    }
    case 'dynamips': {
      const r = dynamipsNodeUpdate(p, f.dynamips);
      return r.ok ? r : { ok: false, field: r.field, row: null, message: r.message };
    }
    case 'none':
      return { ok: true, properties: null };
    default:
      return assertNever(editor, 'editor');
  }
}

/** The fields the form of a node shows: where a server error about one of
 * them is shown (fieldpath.ts). */
export function formFields(n: Node): string[] {
  const fields = ['name', 'console', 'console_type', 'symbol', 'label', 'x', 'y', 'z'];
  const editor = typeInfo(n.node_type).editor;
  switch (editor) {
    case 'vpcs': return [...fields, 'startup_script'];
    case 'switch': case 'hub': return [...fields, 'ports_mapping'];
    case 'frame_relay': return [...fields, 'mappings'];
    case 'cloud': return [...fields, 'ports_mapping', 'interfaces'];
    case 'nat': return [...fields, 'allow_host_loopback'];
    case 'qemu': return [...fields, ...QEMU_NODE_FIELDS];
    case 'docker': return [...fields, ...DOCKER_NODE_FIELDS];
    case 'dynamips': return [...fields, ...DYNAMIPS_NODE_FIELDS];
    case 'none': return fields;
    default: return assertNever(editor, 'editor');
  }
}

/** rebase moves a form onto a newer version of its node (a live update):
 * fields the user has not touched take the new values, edited ones stay. */
export function rebase(base: Node, form: NodeForm, next: Node): NodeForm {
  const was = formFromNode(base);
  const now = formFromNode(next);
  const out = { ...form } as Record<keyof NodeForm, unknown>;
  for (const k of Object.keys(now) as (keyof NodeForm)[]) {
    if (same(form[k], was[k])) out[k] = now[k];
    else if (k === 'qemu') out[k] = rebaseFields(form.qemu, was.qemu, now.qemu);
    else if (k === 'docker') out[k] = rebaseFields(form.docker, was.docker, now.docker);
    else if (k === 'dynamips') out[k] = rebaseFields(form.dynamips, was.dynamips, now.dynamips);
  }
  return out as unknown as NodeForm;
}

/** rebaseFields is rebase for a group of fields: each one the user has
 * not touched takes its new value. */
function rebaseFields<T extends object>(form: T, was: T, now: T): T {
  const out = { ...form };
  for (const k of Object.keys(now) as (keyof T)[]) {
    if (same(form[k], was[k])) out[k] = now[k];
  }
  return out;
}

/** isDirty says whether the form holds edits not saved yet. */
export function isDirty(base: Node, form: NodeForm): boolean {
  const r = buildUpdate(base, form);
  return !r.ok || r.changed;
}
