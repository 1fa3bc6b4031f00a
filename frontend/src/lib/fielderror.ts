// Which form field a server validation message is about, so the panel can
// show it next to that field (and otherwise at the top).

export interface FieldHit {
  /** A form field name (as in the wire body), or null for "the whole form". */
  field: string | null;
  /** The row of a table field (ports_mapping.3 → 3), when the message says. */
  row: number | null;
}

/** Patterns in the words nodedesk uses, each naming the fields it may be
 * about, most likely first. */
const PATTERNS: readonly { re: RegExp; fields: readonly string[] }[] = [
  { re: /\bports_mapping\b/i, fields: ['ports_mapping'] },
  { re: /\bvlan\b/i, fields: ['ports_mapping'] },
  { re: /\bethertype\b/i, fields: ['ports_mapping'] },
  { re: /\bport number \d+ appears twice\b/i, fields: ['ports_mapping'] },
  { re: /\bhas a link attached\b/i, fields: ['ports_mapping', 'mappings'] },
  { re: /\binterfaces?\b/i, fields: ['ports_mapping', 'interfaces'] },
  { re: /\bframe relay\b|\bmappings?\b|\bdlci\b/i, fields: ['mappings'] },
  { re: /\bstartup[ _]script\b/i, fields: ['startup_script'] },
  { re: /\bconsole[ _]type\b/i, fields: ['console_type'] },
  { re: /\bconsole\b/i, fields: ['console'] },
  { re: /\bsymbol\b/i, fields: ['symbol'] },
  { re: /\blabel\b/i, fields: ['label'] },
  { re: /\bnamed?\b/i, fields: ['name'] },
];

/** fieldForError finds the field of `fields` a message is about. */
export function fieldForError(message: string, fields: readonly string[]): FieldHit {
  const has = new Set(fields);
  const row = rowOf(message);
  // "Invalid request body: console: got string…" names the field exactly.
  const exact = /^invalid request body: ([a-z_]+)/i.exec(message);
  if (exact && has.has(exact[1])) return { field: exact[1], row };

  const hits: { at: number; len: number; fields: readonly string[] }[] = [];
  for (const p of PATTERNS) {
    const m = p.re.exec(message);
    if (m) hits.push({ at: m.index, len: m[0].length, fields: p.fields });
  }
  hits.sort((a, b) => a.at - b.at || b.len - a.len);
  for (const h of hits) {
    const f = h.fields.find((x) => has.has(x));
    if (f) return { field: f, row: f === 'ports_mapping' ? row : null };
  }
  return { field: null, row: null };
}

function rowOf(message: string): number | null {
  const m = /\bports_mapping\.(\d+)/.exec(message);
  return m ? Number(m[1]) : null;
}
