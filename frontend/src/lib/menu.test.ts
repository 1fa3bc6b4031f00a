import { describe, expect, it } from 'vitest';
import { consoleShown, linkEntries, nextEnabled, nodeEntries, placeMenu } from './menu';
import { link, vpcs } from './testdata';
import type { NodeTypeInfo } from './types';

const info = (over: Partial<NodeTypeInfo>): NodeTypeInfo => ({
  node_type: 'vpcs', console_types: ['telnet'], lifecycle: 'process', properties: null, compute_view: true,
  default_name_format: 'PC{0}', symbol: '', traffic: '', runs: true, ...over,
}) as NodeTypeInfo;

describe('context menus', () => {
  it('offers start and a console for a type nodedesk runs, as its status allows', () => {
    const ids = nodeEntries(vpcs('pc1', { status: 'stopped' }), info({}));
    expect(ids.map((e) => e.id)).toEqual(['start', 'suspend', 'stop', 'reload', 'console', 'terminal', 'configure', 'duplicate', 'delete']);
    expect(ids.filter((e) => e.disabled).map((e) => e.id)).toEqual(['suspend', 'stop', 'reload']);
  });

  it('offers neither start nor a console for a type the server says nodedesk does not run', () => {
    const router = vpcs('r1', { node_type: 'dynamips' });
    const ids = nodeEntries(router, info({ node_type: 'dynamips', runs: false })).map((e) => e.id);
    expect(ids).toEqual(['configure', 'duplicate', 'delete']);
    expect(consoleShown(router, info({ runs: false }))).toBe(false);
    expect(consoleShown(router, info({ runs: true }))).toBe(true);
  });

  it('names the link action by its state', () => {
    const l = { ...link('l1', ['a', 0], ['b', 0]), suspend: true, capturing: true };
    expect(linkEntries(l).map((e) => e.label)).toEqual(['Resume traffic', 'Filters…', 'Stop capture', 'Delete']);
  });

  it('keeps the menu inside the window', () => {
    expect(placeMenu({ x: 100, y: 100 }, 200, 300, 1440, 900)).toEqual({ x: 100, y: 100 });
    expect(placeMenu({ x: 1400, y: 850 }, 200, 300, 1440, 900)).toEqual({ x: 1236, y: 596 });
    expect(placeMenu({ x: 10, y: 10 }, 200, 2000, 1440, 900)).toEqual({ x: 10, y: 4 });
  });

  it('moves past disabled entries, wrapping', () => {
    const es = [{ disabled: true }, {}, { disabled: true }, {}];
    expect(nextEnabled(es, -1, 1)).toBe(1);
    expect(nextEnabled(es, 3, 1)).toBe(1);
    expect(nextEnabled(es, 1, -1)).toBe(3);
    expect(nextEnabled([{ disabled: true }], 0, 1)).toBe(-1);
  });
});
