import { describe, expect, it } from 'vitest';
import { allowBody, waitingNotice, waitingPorts } from './model';
import { ethSwitch, vpcs } from '../../lib/testdata';

const mapping = [
  { name: 'eth0', port_number: 0, type: 'ethernet', interface: 'eth0' },
  { name: 'UDP tunnel 1', port_number: 1, type: 'udp', lport: 20000, rhost: '127.0.0.1', rport: 20001 },
];
const cloud = (waiting?: string[]) =>
  vpcs('c1', { node_type: 'cloud', name: 'Cloud1', properties: { ports_mapping: mapping, interfaces: [] }, ...(waiting ? { ports_waiting: waiting } : {}) });

describe('ports waiting for the user', () => {
  it('lists none for a node the server marks none', () => {
    expect(waitingPorts(cloud())).toEqual([]);
    expect(waitingPorts(ethSwitch())).toEqual([]);
    expect(waitingNotice([])).toBe('');
  });

  it('names the port that came from the project file', () => {
    expect(waitingPorts(cloud(['eth0']))).toEqual(['eth0']);
    expect(waitingNotice(['eth0'])).toBe('Port eth0 comes from the project file and carries nothing until you allow it.');
    expect(waitingNotice(['eth0', 'virbr0'])).toBe('Ports eth0, virbr0 come from the project file and carry nothing until you allow them.');
  });

  it('allows by re-saving the ports as the server has them', () => {
    expect(allowBody(cloud(['eth0']))).toEqual({ properties: { ports_mapping: mapping } });
  });
});
