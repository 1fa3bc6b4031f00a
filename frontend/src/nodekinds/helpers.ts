// Small helpers the registry's entries and the node form share: a deep
// copy and a deep comparison of JSON values, and a template body with
// its type put in, a part's PUT body without its unchanged keys.

import type { NodeType, Template, TemplateCreate } from '../lib/types';
import type { PartBody, PartUpdate, TemplateCheck } from './kind';

/** clone is a deep copy of a JSON value (undefined → null). */
export const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T;

/** same says whether two JSON values are equal (key order counts). */
export const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** typedBody puts the type into a template body made by a type's form. */
export function typedBody<B extends object>(
  template_type: NodeType,
  r: { ok: true; body: B } | { ok: false; errors: Partial<Record<string, string>> },
): TemplateCheck {
  return r.ok ? { ok: true, body: { template_type, ...r.body } as unknown as TemplateCreate } : r;
}

/** partBody is a part's answer from what it changed: a key that is null
 * (or absent) did not change and is left out of the body. */
export function partBody(b: { [K in keyof PartBody]?: PartBody[K] | null }): PartUpdate {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(b)) if (v !== null && v !== undefined) body[k] = v;
  return { ok: true, body: body as PartBody };
}

/** The settings of a template, read for a type's form: GNS3 keeps them
 * beside the common keys. A value of another JSON type reads as empty. */
export interface TemplateReader {
  str(key: string): string;
  /** num is a number as a form types it ('' for none). */
  num(key: string): string;
  bool(key: string): boolean;
  list(key: string): unknown[];
}

/** readTemplate reads a template's settings for a type's form. */
export function readTemplate(t: Template): TemplateReader {
  const r = t as unknown as Record<string, unknown>;
  return {
    str: (k) => (typeof r[k] === 'string' ? (r[k] as string) : ''),
    num: (k) => (typeof r[k] === 'number' && Number.isFinite(r[k]) ? String(r[k]) : ''),
    bool: (k) => r[k] === true,
    list: (k) => (Array.isArray(r[k]) ? (r[k] as unknown[]) : []),
  };
}
