import { describe, expect, it } from 'vitest';
import { freePorts, linksOfNodes, portName, usedPorts } from './ports';
import { ethSwitch, frSwitch, link, vpcs } from './testdata';

describe('port availability', () => {
  const pc = vpcs('pc1');
  const sw = ethSwitch('sw1');
  const links = [link('l1', ['pc1', 0], ['sw1', 2])];

  it('knows which ports have links', () => {
    expect([...usedPorts(links, 'sw1')]).toEqual([['0/2', 'l1']]);
    expect(freePorts(sw, links).map((p) => p.port_number)).toEqual([0, 1, 3]);
    expect(freePorts(pc, links)).toEqual([]);
  });

  it('filters free ports by link type', () => {
    expect(freePorts(frSwitch(), [], 'ethernet')).toEqual([]);
    expect(freePorts(frSwitch(), [], 'serial').map((p) => p.name)).toEqual(['1', '2']);
  });

  it('names ports by short name', () => {
    expect(portName(sw, 0, 3)).toBe('e3');
    expect(portName(sw, 1, 9)).toBe('1/9');
    expect(portName(undefined, 0, 1)).toBe('0/1');
  });

  it('finds the links of a set of nodes', () => {
    expect(linksOfNodes(links, new Set(['sw1'])).map((l) => l.link_id)).toEqual(['l1']);
    expect(linksOfNodes(links, new Set(['x']))).toEqual([]);
  });
});
