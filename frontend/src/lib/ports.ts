// Which ports of a node are free, and what can be linked to what.

import type { Link, Node, Port } from './types';

export const portKey = (adapter: number, port: number) => `${adapter}/${port}`;

/** usedPorts maps each port of nodeId that has a link ("a/p") to that link's id. */
export function usedPorts(links: readonly Link[], nodeId: string): Map<string, string> {
  const used = new Map<string, string>();
  for (const l of links) {
    for (const end of l.nodes) {
      if (end.node_id === nodeId) used.set(portKey(end.adapter_number, end.port_number), l.link_id);
    }
  }
  return used;
}

/** freePorts lists the ports of node that no link uses, optionally only those of one link type. */
export function freePorts(node: Node, links: readonly Link[], linkType?: Port['link_type']): Port[] {
  const used = usedPorts(links, node.node_id);
  return node.ports.filter(
    (p) => !used.has(portKey(p.adapter_number, p.port_number)) && (!linkType || p.link_type === linkType),
  );
}

/** portName is the name of a port of node, or "a/p" when it has none. */
export function portName(node: Node | undefined, adapter: number, port: number): string {
  const p = node?.ports.find((x) => x.adapter_number === adapter && x.port_number === port);
  return p ? p.short_name || p.name : portKey(adapter, port);
}

/** linkProblem says why a and b cannot be linked, or null when they can. */
export function linkProblem(a: Node, b: Node, links: readonly Link[]): string | null {
  if (a.node_id === b.node_id) return `Cannot connect ${a.name} to itself; pick two different nodes`;
  const fa = freePorts(a, links);
  const fb = freePorts(b, links);
  if (a.ports.length === 0) return `${a.name} has no ports${portHint(a)}`;
  if (b.ports.length === 0) return `${b.name} has no ports${portHint(b)}`;
  if (fa.length === 0) return `Every port of ${a.name} is in use; delete one of its links or add ports`;
  if (fb.length === 0) return `Every port of ${b.name} is in use; delete one of its links or add ports`;
  const shared = fa.some((p) => fb.some((q) => q.link_type === p.link_type));
  if (!shared) return `${a.name} and ${b.name} have no free ports of the same kind (ethernet or serial)`;
  return null;
}

function portHint(n: Node): string {
  return n.node_type === 'frame_relay_switch' ? ': add a DLCI mapping to create ports' : '';
}

/** linksOfNodes lists the links touching any of the given nodes. */
export function linksOfNodes(links: readonly Link[], nodeIds: ReadonlySet<string>): Link[] {
  return links.filter((l) => l.nodes.some((e) => nodeIds.has(e.node_id)));
}
