// The property panel's form: made from a node, turned back into the one
// PUT body that holds exactly what the user changed. It checks only that
// what was typed can be sent (a number where the body wants one); every
// rule about the values is the server's, whose 400 names the field.

import { consoleChoice, consoleValue, type ConsoleChoice } from './nodetypes';
import { findKind } from '../nodekinds';
import { same } from '../nodekinds/helpers';
import type { PartUpdate } from '../nodekinds/kind';
import type { Node, NodeUpdate } from './types';

/** The panel's form: the general fields of every node, and its type's
 * own part (own), read and sent by its entry in the registry. */
export interface NodeForm<P = unknown> {
  name: string;
  /** Console TCP port; null leaves the choice to nodedesk. */
  console: number | null;
  console_type: ConsoleChoice;
  symbol: string;
  label: string;
  x: number | null;
  y: number | null;
  z: number | null;
  /** The type's part (its entry's form.read); null for a type with none. */
  own: P;
}

/** formFromNode is the form of a node as it is (P: its type's part). */
export function formFromNode<P = unknown>(n: Node): NodeForm<P> {
  const part = findKind(n.node_type)?.form;
  return {
    name: n.name,
    console: n.console,
    console_type: consoleChoice(n.console_type),
    symbol: n.symbol ?? '',
    label: n.label?.text ?? '',
    x: n.x,
    y: n.y,
    z: n.z,
    own: (part ? part.read(n) : null) as P,
  };
}

export type BuildResult =
  | { ok: true; body: NodeUpdate; changed: boolean }
  | { ok: false; field: string; row: number | null; message: string };

const isInt = (v: number | null): v is number => typeof v === 'number' && Number.isInteger(v);

/** buildUpdate makes the PUT body of what differs between node and form,
 * or says which field cannot be sent as typed. */
export function buildUpdate<P>(n: Node, f: NodeForm<P>): BuildResult {
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

  const part = partUpdate(n, f);
  if (!part.ok) return part;
  Object.assign(body, part.body);
  return { ok: true, body, changed: Object.keys(body).length > 0 };
}

/** partUpdate is what the type's part of the form adds to the body. */
function partUpdate(n: Node, f: NodeForm): PartUpdate {
  const part = findKind(n.node_type)?.form;
  return part ? part.update(n, f.own) : { ok: true, body: {} };
}

/** The fields the form of a node shows: where a server error about one of
 * them is shown (fieldpath.ts). */
export function formFields(n: Node): string[] {
  const fields = ['name', 'console', 'console_type', 'symbol', 'label', 'x', 'y', 'z'];
  return [...fields, ...(findKind(n.node_type)?.form?.fields ?? [])];
}

/** rebase moves a form onto a newer version of its node (a live update):
 * fields the user has not touched take the new values, edited ones stay. */
export function rebase<P>(base: Node, form: NodeForm<P>, next: Node): NodeForm<P> {
  const was = formFromNode<P>(base);
  const now = formFromNode<P>(next);
  const out = { ...form } as Record<keyof NodeForm, unknown>;
  for (const k of Object.keys(now) as (keyof NodeForm)[]) {
    if (same(form[k], was[k])) out[k] = now[k];
    else if (k === 'own' && isFields(form.own) && isFields(was.own) && isFields(now.own)) out[k] = rebaseFields(form.own, was.own, now.own);
  }
  return out as unknown as NodeForm<P>;
}

/** isFields says whether a type's part is a group of fields (an object),
 * rebased field by field, rather than one value (a table, a text). */
const isFields = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

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
export function isDirty<P>(base: Node, form: NodeForm<P>): boolean {
  const r = buildUpdate(base, form);
  return !r.ok || r.changed;
}
