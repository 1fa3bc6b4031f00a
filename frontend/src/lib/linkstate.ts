// A link's traffic state as the page shows and edits it: whether it is
// suspended, filtered or capturing (the marks on the map), the filters
// form of the link panel (driven by the server's available_filters: the
// page knows no filter of its own and checks no range — the server's 400
// speaks), where a server error about a link goes, and the capture formats
// a link's ports offer (their data_link_types, as the server lists them).

import { portName } from './ports';
import type { Link, LinkFilter, Node } from './types';

/** What a link is doing to its traffic, at a glance. */
export interface LinkMarks {
  suspended: boolean;
  filtered: boolean;
  capturing: boolean;
  /** A compute of one of its nodes is not connected: its tunnel carries nothing. */
  unreachable: boolean;
  /** One line per state, for a tooltip; '' when the link is plain. */
  title: string;
}

/** A filter's values as the server keeps them: an array of numbers. */
const valuesOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

/** activeFilters lists the filters a link carries (the server leaves
 * inactive ones out), in the server's key order. */
export function activeFilters(filters: Link['filters'] | null | undefined): string[] {
  return Object.keys(filters ?? {}).filter((k) => valuesOf(filters?.[k]).length > 0);
}

/** filterLabel names a filter: its name in `available` when known
 * ("Packet loss"), else its type made readable ("packet loss"). */
export function filterLabel(type: string, available?: readonly LinkFilter[]): string {
  return available?.find((f) => f.type === type)?.name ?? type.replaceAll('_', ' ');
}

/** filterSummary says what a link's filters do, one per filter:
 * "Packet loss 30 %", "Delay 100 ms, 10 ms" (units when `available` is known). */
export function filterSummary(filters: Link['filters'] | null | undefined, available?: readonly LinkFilter[]): string[] {
  return activeFilters(filters).map((type) => {
    const params = available?.find((f) => f.type === type)?.parameters ?? [];
    const values = valuesOf(filters?.[type]).map((v, i) => {
      const unit = params[i]?.unit;
      return unit ? `${String(v)} ${unit}` : String(v);
    });
    return `${filterLabel(type, available)} ${values.join(', ')}`;
  });
}

/** linkMarks is what the map shows of a link's state. */
export function linkMarks(link: Pick<Link, 'suspend' | 'filters' | 'capturing' | 'capture_file_name'> & Partial<Pick<Link, 'compute_connected'>>): LinkMarks {
  const filters = filterSummary(link.filters);
  const unreachable = link.compute_connected === false;
  const lines: string[] = [];
  if (unreachable) lines.push('Unreachable: a compute of this link is not connected; it carries nothing until the compute is back');
  if (link.suspend) lines.push('Suspended: no traffic crosses this link');
  if (filters.length > 0) lines.push(`Filtered: ${filters.join('; ')}`);
  if (link.capturing) lines.push(`Capturing${link.capture_file_name ? ` to ${link.capture_file_name}` : ''}`);
  return { suspended: link.suspend, filtered: filters.length > 0, capturing: link.capturing, unreachable, title: lines.join('\n') };
}

/** The filters form: per filter type the server offers, one value per
 * parameter (null: empty). */
export type FilterForm = Record<string, (number | null)[]>;

const asNumber = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  return Number.isFinite(n) ? n : null;
};

/** filterForm fills the form from a link's filters: every filter the
 * server offers, empty when the link does not carry it. */
export function filterForm(filters: Link['filters'] | null | undefined, available: readonly LinkFilter[]): FilterForm {
  const form: FilterForm = {};
  for (const f of available) {
    const have = valuesOf(filters?.[f.type]);
    form[f.type] = f.parameters.map((_, i) => asNumber(have[i]));
  }
  return form;
}

/** filtersBody is the `filters` of the PUT that saves the form: each
 * filter with a value, its values up to the last one given (an empty one
 * before it is sent as "", which the server judges); a filter left empty
 * is not sent, which clears it. */
export function filtersBody(form: FilterForm, available: readonly LinkFilter[]): Record<string, (number | string)[]> {
  const out: Record<string, (number | string)[]> = {};
  for (const f of available) {
    const vals = form[f.type] ?? [];
    let last = -1;
    vals.forEach((v, i) => {
      if (v !== null && v !== undefined) last = i;
    });
    if (last >= 0) out[f.type] = vals.slice(0, last + 1).map((v) => (v === null || v === undefined ? '' : v));
  }
  return out;
}

/** filtersChanged says whether saving the form would change the link's
 * filters (as the server keeps them). */
export function filtersChanged(filters: Link['filters'] | null | undefined, form: FilterForm, available: readonly LinkFilter[]): boolean {
  const want = filtersBody(form, available);
  const have = filtersBody(filterForm(filters, available), available);
  return JSON.stringify(sorted(want)) !== JSON.stringify(sorted(have));
}

/** changedFilters lists the filter types whose values the form changes,
 * in the server's order: where an error about "filters" as a whole most
 * likely lies when the form changed only one. */
export function changedFilters(filters: Link['filters'] | null | undefined, form: FilterForm, available: readonly LinkFilter[]): string[] {
  const want = filtersBody(form, available);
  const have = filtersBody(filterForm(filters, available), available);
  return available.map((f) => f.type).filter((t) => JSON.stringify(want[t] ?? null) !== JSON.stringify(have[t] ?? null));
}

const sorted = <T>(o: Record<string, T>): [string, T][] => Object.entries(o).sort(([a], [b]) => a.localeCompare(b));

/** Where the link panel shows a server error: the section its field path
 * names ("filters", "filters.delay.1", "suspend", "capture_file_name",
 * "data_link_type"), and within the filters the filter and value when the
 * path names them; null for the top of the panel. */
export interface LinkErrorPlace {
  section: 'filters' | 'suspend' | 'capture';
  /** The filter type ("delay"), when named. */
  filter: string | null;
  /** The value's index in the filter's array, when named. */
  index: number | null;
}

export function linkErrorPlace(path: string | null | undefined): LinkErrorPlace | null {
  const parts = (path ?? '').split('.').filter((p) => p !== '');
  switch (parts[0]) {
    case 'filters': {
      const index = parts[2] !== undefined && /^\d+$/.test(parts[2]) ? Number(parts[2]) : null;
      return { section: 'filters', filter: parts[1] ?? null, index };
    }
    case 'suspend':
      return { section: 'suspend', filter: null, index: null };
    case 'capture_file_name':
    case 'data_link_type':
      return { section: 'capture', filter: null, index: null };
    default:
      return null;
  }
}

/** The capture format the server names (DLT_EN10MB…) and its label ("Ethernet"). */
export interface CaptureFormat {
  label: string;
  dlt: string;
}

/** captureFormats are the formats a capture of the link may take: those
 * its ports offer (their data_link_types; both ends of a link carry the
 * same link type), in the server's order; the first is the default. */
export function captureFormats(link: Pick<Link, 'nodes'>, nodes: ReadonlyMap<string, Node>): CaptureFormat[] {
  for (const e of link.nodes) {
    const port = nodes.get(e.node_id)?.ports.find((p) => p.adapter_number === e.adapter_number && p.port_number === e.port_number);
    const dlts = Object.entries(port?.data_link_types ?? {});
    if (dlts.length > 0) return dlts.map(([label, dlt]) => ({ label, dlt }));
  }
  return [];
}

/** defaultCaptureName is the file name the server gives a capture when
 * none is asked for, "<node>_<port>_to_<node>_<port>.pcap", shown as the
 * form's placeholder (the server decides: an empty name is its default). */
export function defaultCaptureName(link: Pick<Link, 'nodes'>, nodes: ReadonlyMap<string, Node>): string {
  const parts = link.nodes.map((e) => {
    const n = nodes.get(e.node_id);
    const port = n?.ports.find((p) => p.adapter_number === e.adapter_number && p.port_number === e.port_number);
    const name = n ? `${n.name}${port ? `_${port.name}` : ''}` : e.node_id;
    return name.replace(/[/\\ \u0000-\u001f]/g, '_');
  });
  return parts.length === 2 ? `${parts[0]}_to_${parts[1]}.pcap` : '';
}

/** linkEnds names a link's two ends for the panel: node and port. */
export function linkEnds(link: Pick<Link, 'nodes'>, nodes: ReadonlyMap<string, Node>): { id: string; name: string; port: string }[] {
  return link.nodes.map((e) => {
    const n = nodes.get(e.node_id);
    return { id: e.node_id, name: n?.name ?? '?', port: portName(n, e.adapter_number, e.port_number) };
  });
}
