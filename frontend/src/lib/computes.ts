// The computes as the page shows and edits them: a compute's address and
// state in words, their order (local first), the choices of the compute
// picker, why a node or a link is unreachable, and the bodies of the
// computes dialog's add and edit. Every value check is the server's (its
// 400/409 speaks, by field); nothing here judges a host or a port.

import type { Compute, ComputeCreate, ComputeUpdate, Link, Node } from './types';

/** The compute that is nodedesk itself. */
export const LOCAL = 'local';

/** computeAddress is where a compute is reached: "http://10.0.0.2:3080"
 * (an IPv6 host in brackets). */
export function computeAddress(c: Pick<Compute, 'protocol' | 'host' | 'port'>): string {
  const host = c.host.includes(':') && !c.host.startsWith('[') ? `[${c.host}]` : c.host;
  return `${c.protocol}://${host}:${c.port}`;
}

/** How a compute is doing, in words. */
export interface ComputeState {
  connected: boolean;
  /** "Connected", or "Not connected — <why>". */
  label: string;
  /** "CPU 12 % · memory 40 %" when the compute reported them, else null. */
  usage: string | null;
}

const pct = (v: number) => `${Math.round(v)} %`;

/** computeState says whether a compute is connected, and if not why (its
 * last_error), with its load when known. */
export function computeState(c: Pick<Compute, 'connected' | 'last_error' | 'cpu_usage_percent' | 'memory_usage_percent'>): ComputeState {
  const why = c.last_error?.trim();
  const label = c.connected ? 'Connected' : why ? `Not connected — ${why}` : 'Not connected';
  const parts: string[] = [];
  if (typeof c.cpu_usage_percent === 'number') parts.push(`CPU ${pct(c.cpu_usage_percent)}`);
  if (typeof c.memory_usage_percent === 'number') parts.push(`memory ${pct(c.memory_usage_percent)}`);
  return { connected: c.connected, label, usage: c.connected && parts.length > 0 ? parts.join(' · ') : null };
}

/** sortComputes orders computes as the page lists them: local first, then
 * by name. */
export function sortComputes(list: readonly Compute[]): Compute[] {
  return [...list].sort(
    (a, b) =>
      Number(b.compute_id === LOCAL) - Number(a.compute_id === LOCAL) ||
      a.name.localeCompare(b.name, undefined, { numeric: true, sensitivity: 'base' }),
  );
}

/** One choice of the compute picker. */
export interface ComputeChoice {
  id: string;
  label: string;
  connected: boolean;
}

/** computeChoices are the picker's options, in the list's order (local
 * says it is, its name being the host's); a compute that is not connected says so (it stays choosable: whether a node can be
 * made there is the server's to say). No picker is shown for one compute. */
export function computeChoices(list: readonly Compute[]): ComputeChoice[] {
  if (list.length < 2) return [];
  return sortComputes(list).map((c) => {
    const name = c.compute_id === LOCAL && c.name !== LOCAL ? `${c.name} (local)` : c.name;
    return { id: c.compute_id, label: c.connected ? name : `${name} (not connected)`, connected: c.connected };
  });
}

/** pickedCompute is the compute new nodes go to: the one picked while it
 * exists, else local. */
export function pickedCompute(list: readonly Compute[], picked: string): string {
  return list.some((c) => c.compute_id === picked) ? picked : LOCAL;
}

/** computeName names a compute by its id (the id itself while the list
 * does not know it). */
export function computeName(list: ReadonlyMap<string, Compute>, id: string): string {
  return list.get(id)?.name ?? id;
}

/** unreachable says why a node cannot be acted on: its compute is not
 * connected ("compute B not connected"); null when it is. */
export function nodeUnreachable(n: Pick<Node, 'compute_connected' | 'compute_id'>, list: ReadonlyMap<string, Compute>): string | null {
  if (n.compute_connected !== false) return null;
  return `compute ${computeName(list, n.compute_id)} not connected`;
}

/** The tooltip of an unreachable node: the reason and the compute's own
 * last error, and what comes next. */
export function unreachableTitle(n: Pick<Node, 'name' | 'compute_connected' | 'compute_id'>, list: ReadonlyMap<string, Compute>): string | null {
  const why = nodeUnreachable(n, list);
  if (!why) return null;
  const err = list.get(n.compute_id)?.last_error?.trim();
  return `${n.name}: ${why}${err ? ` (${err})` : ''}. It cannot be started, stopped or reached until the compute is back; the rest of the lab works on.`;
}

/** Whether a link crosses a compute that is not connected. */
export const linkUnreachable = (l: Pick<Link, 'compute_connected'>): boolean => l.compute_connected === false;

/** The computes dialog's form: the fields as typed. */
export interface ComputeForm {
  name: string;
  protocol: 'http' | 'https';
  host: string;
  /** As typed; sent as a number when it is one, else as typed (the server's 400 says what is wrong). */
  port: string;
  user: string;
  /** Empty: none when adding, unchanged when editing (a password is never shown). */
  password: string;
}

/** emptyForm is the add form: GNS3's usual compute port. */
export const emptyForm = (): ComputeForm => ({ name: '', protocol: 'http', host: '', port: '3080', user: '', password: '' });

/** formFromCompute is the edit form of a compute (no password: never shown). */
export function formFromCompute(c: Compute): ComputeForm {
  return { name: c.name, protocol: c.protocol, host: c.host, port: String(c.port), user: c.user ?? '', password: '' };
}

/** The port as sent: a number when the text is an integer, else the text
 * itself, for the server to refuse by its field. */
function portValue(s: string): number {
  const t = s.trim();
  return (/^\d+$/.test(t) ? Number(t) : t) as number;
}

/** createBody is the POST /v2/computes body of the add form: a name left
 * empty is the server's default, no user and no password are left out. */
export function createBody(f: ComputeForm): ComputeCreate {
  const body: ComputeCreate = { protocol: f.protocol, host: f.host.trim(), port: portValue(f.port) };
  if (f.name.trim()) body.name = f.name.trim();
  if (f.user.trim()) body.user = f.user.trim();
  if (f.password) body.password = f.password;
  return body;
}

/** updateBody is the PUT body of the edit form: the fields that changed
 * (an empty user is null: none; a password only when one was typed). */
export function updateBody(c: Compute, f: ComputeForm): ComputeUpdate {
  const body: ComputeUpdate = {};
  const name = f.name.trim();
  if (name !== c.name) body.name = name;
  if (f.protocol !== c.protocol) body.protocol = f.protocol;
  if (f.host.trim() !== c.host) body.host = f.host.trim();
  const port = portValue(f.port);
  if (port !== c.port) body.port = port;
  const user = f.user.trim() || null;
  if (user !== (c.user ?? null)) body.user = user;
  if (f.password) body.password = f.password;
  return body;
}

/** The form's fields, where the server's error field lands; any other
 * field (or none) is said above the form. */
export const FORM_FIELDS = ['name', 'protocol', 'host', 'port', 'user', 'password'] as const;
export type FormField = (typeof FORM_FIELDS)[number];

/** formField is the form field a server error names, or null. */
export function formField(field: string | null | undefined): FormField | null {
  const head = field?.split('.')[0];
  return (FORM_FIELDS as readonly string[]).includes(head ?? '') ? (head as FormField) : null;
}
