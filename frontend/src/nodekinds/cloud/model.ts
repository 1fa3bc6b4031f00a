// A cloud's ports as the panel edits them: adding one on a host
// interface, and the ports waiting for the user's agreement.
//
// A cloud port whose host interface came from a project file (an import
// or a load) carries nothing until this machine's user allows it: the
// server lists such ports in the node's ports_waiting (nodedesk's own
// field) and takes any PUT of the cloud's ports_mapping as the user's
// agreement. The editor (Editor.svelte) shows the notice and its Allow
// button.

import { nextPortNumber } from '../../lib/porttable';
import type { CloudPort, Node, NodeUpdate } from '../../lib/types';

/** addCloudPort adds a port on a host interface at the lowest free number. */
export function addCloudPort(ports: readonly CloudPort[], iface: string, type: 'ethernet' | 'tap'): CloudPort[] {
  return [...ports, { name: iface, port_number: nextPortNumber(ports), type, interface: iface }];
}

/** The names of n's ports that wait for the user's agreement. */
export function waitingPorts(n: Node): string[] {
  return Array.isArray(n.ports_waiting) ? n.ports_waiting : [];
}

/** The notice the panel shows for the waiting ports names; '' for none. */
export function waitingNotice(names: string[]): string {
  if (names.length === 0) return '';
  if (names.length === 1) {
    return `Port ${names[0]} comes from the project file and carries nothing until you allow it.`;
  }
  return `Ports ${names.join(', ')} come from the project file and carry nothing until you allow them.`;
}

/** The PUT body that allows every waiting port of n: its ports, re-saved
 * as the server has them. */
export function allowBody(n: Node): NodeUpdate {
  const ports = Array.isArray(n.properties?.ports_mapping) ? n.properties.ports_mapping : [];
  return { properties: { ports_mapping: ports } } as NodeUpdate;
}
