// Which ports of a node are free and what they are called: view helpers
// for the link dialog and the panels. Whether two ports may be linked is
// the server's to say (its 400 or 409 when they may not).

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

/** linksOfNodes lists the links touching any of the given nodes. */
export function linksOfNodes(links: readonly Link[], nodeIds: ReadonlySet<string>): Link[] {
  return links.filter((l) => l.nodes.some((e) => nodeIds.has(e.node_id)));
}
