import { describe, expect, it } from 'vitest';
import {
  activeFilters, captureFormats, changedFilters, defaultCaptureName, filterForm, filterSummary, filtersBody, filtersChanged, linkErrorPlace, linkMarks,
} from './linkstate';
import { frSwitch, link, vpcs } from './testdata';
import type { LinkFilter } from './types';

// As GET /v2/projects/{p}/links/{l}/available_filters answers.
const AVAILABLE: LinkFilter[] = [
  { type: 'frequency_drop', name: 'Frequency drop', description: 'Drops one packet in every N', parameters: [{ name: 'Frequency', type: 'int', minimum: -1, maximum: 32767, unit: 'th packet' }] },
  { type: 'packet_loss', name: 'Packet loss', description: 'Each packet is lost with this chance', parameters: [{ name: 'Chance', type: 'int', minimum: 0, maximum: 100, unit: '%' }] },
  {
    type: 'delay', name: 'Delay', description: 'Holds each packet', parameters: [
      { name: 'Latency', type: 'int', minimum: 0, maximum: 32767, unit: 'ms' },
      { name: 'Jitter (+/-)', type: 'int', minimum: 0, maximum: 32767, unit: 'ms' },
    ],
  },
];

describe('link marks', () => {
  it('a plain link has none and no title', () => {
    expect(linkMarks(link('l1', ['a', 0], ['b', 0]))).toEqual({ suspended: false, filtered: false, capturing: false, unreachable: false, title: '' });
  });

  it('a link across a compute that is not connected is unreachable, and says so first', () => {
    const m = linkMarks({ ...link('l1', ['a', 0], ['b', 0]), compute_connected: false, suspend: true });
    expect([m.unreachable, m.suspended]).toEqual([true, true]);
    expect(m.title.split('\n')[0]).toMatch(/^Unreachable: a compute of this link is not connected/);
    expect(linkMarks({ ...link('l1', ['a', 0], ['b', 0]), compute_connected: true }).unreachable).toBe(false);
  });

  it('says each state in the title, one per line', () => {
    const l = { ...link('l1', ['a', 0], ['b', 0]), suspend: true, filters: { packet_loss: [30], delay: [100, 10] }, capturing: true, capture_file_name: 'a_to_b.pcap' };
    const m = linkMarks(l);
    expect([m.suspended, m.filtered, m.capturing]).toEqual([true, true, true]);
    expect(m.title.split('\n')).toEqual([
      'Suspended: no traffic crosses this link',
      'Filtered: packet loss 30; delay 100, 10',
      'Capturing to a_to_b.pcap',
    ]);
  });

  it('an empty filter array is no filter', () => {
    expect(linkMarks({ ...link('l1', ['a', 0], ['b', 0]), filters: { packet_loss: [] } }).filtered).toBe(false);
    expect(activeFilters({ packet_loss: [], delay: [5] })).toEqual(['delay']);
    expect(activeFilters(null)).toEqual([]);
  });

  it('summarises filters with the server names and units when known', () => {
    expect(filterSummary({ packet_loss: [30], delay: [100, 10] }, AVAILABLE)).toEqual(['Packet loss 30 %', 'Delay 100 ms, 10 ms']);
  });
});

describe('filters form', () => {
  it('has every filter the server offers, one value per parameter', () => {
    expect(filterForm({ delay: [100] }, AVAILABLE)).toEqual({ frequency_drop: [null], packet_loss: [null], delay: [100, null] });
  });

  it('sends the filters given, up to their last value; an empty one is left out (cleared)', () => {
    expect(filtersBody({ frequency_drop: [null], packet_loss: [30], delay: [100, null] }, AVAILABLE)).toEqual({ packet_loss: [30], delay: [100] });
    expect(filtersBody({ frequency_drop: [null], packet_loss: [null], delay: [null, null] }, AVAILABLE)).toEqual({});
    // An empty value before a given one goes to the server as "", which judges it.
    expect(filtersBody({ delay: [null, 10] }, AVAILABLE)).toEqual({ delay: ['', 10] });
    // Out-of-range values are the server's to refuse, not the page's.
    expect(filtersBody({ packet_loss: [300] }, AVAILABLE)).toEqual({ packet_loss: [300] });
    // Only what the server offers is sent.
    expect(filtersBody({ bpf: [1] }, AVAILABLE)).toEqual({});
  });

  it('round-trips and tells a change', () => {
    const filters = { packet_loss: [30] };
    const form = filterForm(filters, AVAILABLE);
    expect(filtersBody(form, AVAILABLE)).toEqual(filters);
    expect(filtersChanged(filters, form, AVAILABLE)).toBe(false);
    expect(filtersChanged(filters, { ...form, packet_loss: [31] }, AVAILABLE)).toBe(true);
    expect(filtersChanged(filters, { ...form, packet_loss: [null] }, AVAILABLE)).toBe(true);
    expect(filtersChanged({ delay: [100, 10] }, { delay: [100, 10] }, AVAILABLE)).toBe(false);
  });
});

describe('changed filters', () => {
  it('names the filters the form changes', () => {
    const filters = { packet_loss: [30], delay: [100] };
    const form = filterForm(filters, AVAILABLE);
    expect(changedFilters(filters, form, AVAILABLE)).toEqual([]);
    expect(changedFilters(filters, { ...form, packet_loss: [300] }, AVAILABLE)).toEqual(['packet_loss']);
    expect(changedFilters(filters, { ...form, frequency_drop: [5], delay: [null, null] }, AVAILABLE)).toEqual(['frequency_drop', 'delay']);
  });
});

describe('link error place', () => {
  it.each([
    ['filters', { section: 'filters', filter: null, index: null }],
    ['filters.delay', { section: 'filters', filter: 'delay', index: null }],
    ['filters.delay.1', { section: 'filters', filter: 'delay', index: 1 }],
    ['suspend', { section: 'suspend', filter: null, index: null }],
    ['capture_file_name', { section: 'capture', filter: null, index: null }],
    ['data_link_type', { section: 'capture', filter: null, index: null }],
  ])('%s', (path, place) => {
    expect(linkErrorPlace(path)).toEqual(place);
  });

  it('is the top of the panel otherwise', () => {
    expect(linkErrorPlace(null)).toBeNull();
    expect(linkErrorPlace('')).toBeNull();
    expect(linkErrorPlace('nodes.0')).toBeNull();
  });
});

describe('capture', () => {
  const ns = new Map([vpcs('a', { name: 'PC 1' }), vpcs('b', { name: 'PC2' }), frSwitch('fr')].map((n) => [n.node_id, n]));

  it('offers the formats of the link ports, the first the default', () => {
    expect(captureFormats(link('l1', ['a', 0], ['b', 0]), ns)).toEqual([{ label: 'Ethernet', dlt: 'DLT_EN10MB' }]);
    expect(captureFormats(link('l2', ['fr', 1], ['fr', 2]), ns)).toEqual([{ label: 'Frame Relay', dlt: 'DLT_FRELAY' }]);
    expect(captureFormats(link('l3', ['gone', 0], ['b', 0]), ns)).toEqual([{ label: 'Ethernet', dlt: 'DLT_EN10MB' }]);
    expect(captureFormats(link('l4', ['gone', 0], ['gone2', 0]), ns)).toEqual([]);
  });

  it('names the file as the server would by default', () => {
    expect(defaultCaptureName(link('l1', ['a', 0], ['b', 0]), ns)).toBe('PC_1_Ethernet0_to_PC2_Ethernet0.pcap');
  });
});
