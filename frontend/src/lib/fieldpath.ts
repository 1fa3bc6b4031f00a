// Where the property panel shows a server error: next to the field its
// `field` path names. The server says which field (AppError.field, a
// dot-separated path in the PUT body); the panel only maps the path onto
// its form.

/** A place in the node form. */
export interface FieldPlace {
  /** The form field: a top-level key of the body ("console", "label"), or
   * the properties key an editor shows ("ports_mapping", "mappings"). */
  field: string;
  /** The row of a table field (properties.ports_mapping.3.vlan → 3). */
  row: number | null;
  /** The key within that row ("vlan"), when the path names one. */
  key: string | null;
}

/** fieldPlace maps a controller node body's field path onto the form:
 * "properties.ports_mapping.3.vlan" → ports_mapping, row 3, key vlan;
 * "properties.mappings" → mappings; "label.rotation" → label. */
export function fieldPlace(path: string): FieldPlace | null {
  const parts = path.split('.').filter((p) => p !== '');
  if (parts[0] === 'properties') parts.shift();
  const [field, row, key] = parts;
  if (!field) return null;
  const isRow = row !== undefined && /^\d+$/.test(row);
  return { field, row: isRow ? Number(row) : null, key: isRow ? (key ?? null) : null };
}

/** errorPlace is where the panel shows an error about `path`: its place
 * when the form shows that field (`shown`), or null for the top of the
 * form (no field, or one the form does not show). */
export function errorPlace(path: string | null | undefined, shown: readonly string[]): FieldPlace | null {
  const place = path ? fieldPlace(path) : null;
  return place && shown.includes(place.field) ? place : null;
}
