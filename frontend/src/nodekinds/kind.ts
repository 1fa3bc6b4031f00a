// What an entry of the node-type registry (index.ts) holds: the page's
// own knowledge of one node type — its name, the part of the node
// panel's form it adds and the editor that shows it, what its views
// load from the server, and the dialog that makes its templates. What
// the server decides about a type (its consoles, whether it runs) comes
// from GET /v2/node_types (stores/nodetypes.ts) instead.

import type { Component } from 'svelte';
import type { ConsoleChoice } from '../lib/nodetypes';
import type { CustomAdapter, Node, NodeType, TemplateCreate } from '../lib/types';

/** An error shown by a field: the message, and for a table the row and
 * the key in it that the server named. */
export type FieldErr = { message: string; row: number | null; key?: string | null };

/** What a type's part of the form adds to the node's PUT body (null:
 * nothing changed), or the field that cannot be sent as typed. */
export type PartUpdate =
  | { ok: true; properties: Record<string, unknown> | null; custom_adapters?: CustomAdapter[] | null }
  | { ok: false; field: string; row: number | null; message: string };

/** A type's part of the node panel's form: read from a node, turned back
 * into what the PUT body gets. */
export interface FormPart<F> {
  read(n: Node): F;
  update(n: Node, f: F): PartUpdate;
  /** The keys it edits, where a server error about one is shown. */
  fields: readonly string[];
}

/** What the node panel gives a type's editor. */
export interface EditorProps<F, S = undefined> {
  /** The type's part of the form (bindable). */
  form: F;
  node: Node;
  pid: string;
  /** What the type's entry loads for its views. */
  store: S;
  /** The console type chosen in the form. */
  consoleType: ConsoleChoice;
  error: (field: string) => FieldErr | null;
  /** Port numbers that have a link. */
  linked: ReadonlySet<number>;
}

/** What the template dialog gives a type's body. */
export interface TemplateBodyProps<T, S = undefined> {
  /** The dialog's form (bindable). */
  form: T;
  errors: Partial<Record<string, string>>;
  store: S;
  /** The console types the server accepts for the type, and its default. */
  consoles: ConsoleChoice[];
  consoleDefault: ConsoleChoice | null;
}

export type TemplateCheck = { ok: true; body: TemplateCreate } | { ok: false; errors: Partial<Record<string, string>> };

/** A type's "New … template" dialog: the shell (TemplateDialog.svelte)
 * with the type's body and words. */
export interface TemplateKind<T, S> {
  title: string;
  /** What nodes made from such a template are. */
  lead: string;
  testid: string;
  /** The prefix of its fields' test ids ("qt" → qt-name, qt-error…). */
  prefix: string;
  width: number;
  /** Whether its images folder is where appliances' images go. */
  appliances?: boolean;
  /** The palette's button that opens it. */
  button: { label: string; title: string; testid: string };
  empty(): T;
  /** check makes the POST /v2/templates body, or says by field what cannot be sent. */
  check(f: T): TemplateCheck;
  /** field is the form field a server error names, or null. */
  field(path: string | null | undefined): string | null;
  Body: Component<TemplateBodyProps<T, S>, Record<string, never>, 'form'>;
}

/** One entry of the registry. */
export interface NodeKind<F = any, S = any, T = any> {
  type: NodeType;
  /** Human name of the type. */
  title: string;
  /** Its place in the registry's list (and of its template button). */
  order: number;
  /** A built-in device's place at the top of the palette. */
  paletteRank?: number;
  form?: FormPart<F>;
  Editor?: Component<EditorProps<F, S>, Record<string, never>, 'form'>;
  store?: S;
  template?: TemplateKind<T, S>;
}

/** defineKind checks an entry against its own form, store and template types. */
export const defineKind = <F = undefined, S = undefined, T = undefined>(k: NodeKind<F, S, T>): NodeKind => k;

/** typedBody puts the type into a template body made by a type's form. */
export function typedBody<B extends object>(
  template_type: NodeType,
  r: { ok: true; body: B } | { ok: false; errors: Partial<Record<string, string>> },
): TemplateCheck {
  return r.ok ? { ok: true, body: { template_type, ...r.body } as unknown as TemplateCreate } : r;
}

export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T;
export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
