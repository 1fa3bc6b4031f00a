// An Ethernet hub's port list as the panel edits it.

import { nextPortNumber } from '../../lib/porttable';
import type { EthernetHubPort } from '../../lib/types';

/** addHubPort adds a port at the lowest free number. */
export function addHubPort(ports: readonly EthernetHubPort[]): EthernetHubPort[] {
  const n = nextPortNumber(ports);
  return [...ports, { name: `Ethernet${n}`, port_number: n }];
}
