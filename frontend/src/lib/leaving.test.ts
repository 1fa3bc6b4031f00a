import { afterEach, describe, expect, it } from 'vitest';
import { quitQuestion, running } from './leaving';
import { isBooting, nodeStatusLabel } from './status';
import { nodeTypes } from './stores/nodetypes';
import { vpcs } from './testdata';
import type { NodeTypeInfo } from './types';

const info = (over: Partial<NodeTypeInfo>): NodeTypeInfo => ({
  node_type: 'vpcs', console_types: ['telnet'], lifecycle: 'process', properties: null, compute_view: true,
  default_name_format: 'PC{0}', symbol: '', traffic: '', runs: true, ...over,
}) as NodeTypeInfo;

describe('asking before losing a running lab', () => {
  afterEach(() => nodeTypes.set(new Map()));

  it('counts the nodes whose process runs, not the switches that always do', () => {
    nodeTypes.set(new Map([
      ['vpcs', info({})],
      ['ethernet_switch', info({ node_type: 'ethernet_switch', lifecycle: 'always_running' })],
    ]));
    const nodes = [
      vpcs('pc1', { status: 'started' }), vpcs('pc2', { status: 'suspended' }), vpcs('pc3', { status: 'stopped' }),
      vpcs('sw1', { node_type: 'ethernet_switch', status: 'started' }),
    ];
    expect(running(nodes)).toBe(2);
  });

  it('says how many run where, or asks nothing', () => {
    expect(quitQuestion([])).toBeNull();
    expect(quitQuestion([{ name: 'Lab1', count: 1 }])).toMatch(/^1 node is running in Lab1\. Quitting nodedesk stops them/);
    expect(quitQuestion([{ name: 'Lab1', count: 3 }, { name: 'Lab2', count: 2 }])).toMatch(/^5 nodes are running in 2 projects \(Lab1, Lab2\)/);
  });

  it('shows booting only for a started node the server says boots', () => {
    expect(nodeStatusLabel({ status: 'started', booting: true })).toBe('Booting');
    expect(nodeStatusLabel({ status: 'started', booting: false })).toBe('Running');
    expect(isBooting({ status: 'stopped', booting: true })).toBe(false);
  });
});
