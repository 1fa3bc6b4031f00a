// What an entry of the node-type registry (index.ts) holds: the page's
// own knowledge of one node type — its name, the part of the node
// panel's form it adds and the editor that shows it, what its views
// load from the server, and the dialog that makes its templates. What
// the server decides about a type (its consoles, whether it runs) comes
// from GET /v2/node_types (stores/nodetypes.ts) instead.

import type { Component } from 'svelte';
import type { ConsoleChoice } from '../lib/nodetypes';
import type { Node, NodeType, NodeUpdate, Template, TemplateCreate, TemplateUpdate } from '../lib/types';

/** An error shown by a field: the message, and for a table the row and
 * the key in it that the server named. */
export type FieldErr = { message: string; row: number | null; key?: string | null };

/** What a type's part of the form adds to the node's PUT body: only the
 * keys it changed (an empty body: nothing changed). buildUpdate
 * (lib/nodeform.ts) merges it into the body, whatever its keys. */
export type PartBody = Partial<Pick<NodeUpdate, 'properties' | 'custom_adapters'>>;

/** A part's answer: its part of the PUT body, or the field that cannot
 * be sent as typed (for a table, the row). */
export type PartUpdate =
  | { ok: true; body: PartBody }
  | { ok: false; field: string; row: number | null; message: string };

/** A type's part of the node panel's form: read from a node, turned back
 * into what the PUT body gets. */
export interface FormPart<F> {
  /** read is the part of the form of a node as it is. */
  read(n: Node): F;
  /** update is what the PUT body gets from the part as edited. */
  update(n: Node, f: F): PartUpdate;
  /** The keys it edits, where a server error about one is shown. */
  fields: readonly string[];
}

/** What the node panel gives a type's editor. */
export interface EditorProps<F, D = undefined> {
  /** The type's part of the form (bindable). */
  form: F;
  /** The node as the server last gave it. */
  node: Node;
  /** The project the node is in. */
  pid: string;
  /** What the type's entry gives its views (its deps): the stores it
   * loads and the calls of its own routes. */
  deps: D;
  /** The console type chosen in the form. */
  consoleType: ConsoleChoice;
  /** error is the server's error about a field of the form, or null. */
  error: (field: string) => FieldErr | null;
  /** Port numbers that have a link. */
  linked: ReadonlySet<number>;
  /** save sends a PUT body of the editor's own (an action such as
   * allowing ports, not the form): the panel saves it, moves the form's
   * untouched fields onto the saved node and shows a refusal at its top.
   * It answers the saved node, or null when refused. */
  save: (body: NodeUpdate) => Promise<Node | null>;
  /** Whether the panel is saving the form. */
  saving: boolean;
}

/** What the template dialog gives a type's body. */
export interface TemplateBodyProps<T, D = undefined> {
  /** The dialog's form (bindable). */
  form: T;
  /** What cannot be sent as typed, or the server refused, by field. */
  errors: Partial<Record<string, string>>;
  /** The entry's deps, as its editor gets them. */
  deps: D;
  /** The console types the server accepts for the type, and its default. */
  consoles: ConsoleChoice[];
  consoleDefault: ConsoleChoice | null;
}

/** check's answer: the POST /v2/templates body, or what cannot be sent
 * by field. */
export type TemplateCheck = { ok: true; body: TemplateCreate } | { ok: false; errors: Partial<Record<string, string>> };

/** A type's "New … template" dialog: the shell (TemplateDialog.svelte)
 * with the type's body and words. */
export interface TemplateKind<T, D> {
  /** The dialog's title. */
  title: string;
  /** What nodes made from such a template are. */
  lead: string;
  /** The dialog's test id (e2e). */
  testid: string;
  /** The prefix of its fields' test ids ("qt" → qt-name, qt-error…). */
  prefix: string;
  /** The dialog's width in pixels. */
  width: number;
  /** Whether its images folder is where appliances' images go. */
  appliances?: boolean;
  /** The palette's button that opens it. */
  button: { label: string; title: string; testid: string };
  /** What it makes from an image, for the hints that show how to add
   * one (start screen, empty canvas, How-to): "a router", "a VM". */
  makes?: string;
  /** empty is the form the dialog opens with. */
  empty(): T;
  /** read is the form of an existing template of the type, to edit it. */
  read(t: Template): T;
  /** check makes the POST /v2/templates body, or says by field what cannot be sent. */
  check(f: T): TemplateCheck;
  /** field is the form field a server error names, or null. */
  field(path: string | null | undefined): string | null;
  /** The type's fields inside the dialog. */
  Body: Component<TemplateBodyProps<T, D>, Record<string, never>, 'form'>;
  /** A step once the template is made or saved (an IOS template's idle-PC
   * search): shown in the dialog until it calls ondone. */
  After?: Component<TemplateAfterProps<D>>;
}

/** What the dialog gives a type's step after a template is made or saved. */
export interface TemplateAfterProps<D> {
  /** The template as the server saved it. */
  template: Template;
  deps: D;
  /** save changes the template (the palette shows the change). */
  save: (body: TemplateUpdate) => Promise<Template>;
  /** ondone closes the dialog: the step is finished, failed or skipped. */
  ondone: () => void;
}

/** What the settings dialog gives a type's section. */
export interface SettingsBodyProps<D> {
  /** The entry's deps, as its editor gets them. */
  deps: D;
}

/** A type's section of the settings dialog (SettingsDialog.svelte):
 * settings of its emulator that the server keeps for every node, not a
 * node's nor a template's. The section loads and saves them itself. */
export interface SettingsKind<D> {
  /** The section's heading. */
  title: string;
  /** The section's test id (e2e). */
  testid: string;
  Body: Component<SettingsBodyProps<D>>;
}

/** One entry of the registry (F: its form part, D: its deps, T: its
 * template form). */
export interface NodeKind<F = any, D = any, T = any> {
  /** The node_type it is the entry of (its folder's name). */
  type: NodeType;
  /** Human name of the type. */
  title: string;
  /** Its place in the registry's list (and of its template button). */
  order: number;
  /** A built-in device's place at the top of the palette. */
  paletteRank?: number;
  /** Its part of the node panel's form; none: the panel edits only the
   * general fields. Present exactly when Editor is. */
  form?: FormPart<F>;
  /** The view of its part of the form. */
  Editor?: Component<EditorProps<F, D>, Record<string, never>, 'form'>;
  /** What it gives its views (stores, route calls), by prop. */
  deps?: D;
  /** Its "New … template" dialog; none: no palette button. */
  template?: TemplateKind<T, D>;
  /** Its section of the settings dialog; none: it has no settings there. */
  settings?: SettingsKind<D>;
}

/** defineKind checks an entry against its own form, deps and template
 * types, then erases them on purpose: the registry holds entries of
 * different types in one list, and the panel and the dialog only pass an
 * entry's own form and deps back to its own Editor and Body, which the
 * check here has matched. */
export const defineKind = <F = undefined, D = undefined, T = undefined>(k: NodeKind<F, D, T>): NodeKind => k;
