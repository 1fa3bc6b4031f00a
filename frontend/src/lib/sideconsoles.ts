// A node's consoles beside its main one, as GNS3 gives them: the aux
// console (GNS3's properties.aux: a shell in a container, a terminal tab
// of its own, or telnet) and a web console (console type http or https)
// opened in a browser.

import { dialHost } from './address';
import type { NodeView } from './consoletabs';
import type { Node } from './types';

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** auxPort is a node's aux console port (GNS3's properties.aux), or null. */
export function auxPort(n: Pick<Node, 'properties'>): number | null {
  const a = n.properties?.aux;
  return typeof a === 'number' && Number.isInteger(a) && a > 0 ? a : null;
}

/** auxCommand is what to type to reach a node's aux console (a shell in
 * its container), or null when it has none. */
export function auxCommand(n: Pick<Node, 'properties' | 'console_host'>): { host: string; port: number; command: string } | null {
  const port = auxPort(n);
  if (port === null) return null;
  const host = dialHost(n.console_host);
  return { host, port, command: `telnet ${host} ${port}` };
}

/** webConsole is where a node's web console (console type http or https)
 * is opened in a browser, as GNS3 opens it: the console's scheme, host
 * and port, then console_http_path; null for another console. */
export function webConsole(n: Pick<Node, 'console' | 'console_type' | 'console_host' | 'properties'>): string | null {
  const t: string | null = n.console_type;
  if ((t !== 'http' && t !== 'https') || n.console === null) return null;
  const raw = str(n.properties?.console_http_path).trim() || '/';
  const path = raw.startsWith('/') ? raw : `/${raw}`;
  return `${t}://${dialHost(n.console_host)}:${n.console}${path}`;
}

/** auxNodeView is what an aux tab's machine (consoletabs.ts) knows of its
 * node: its status, and its aux console while it has one; null: deleted. */
export function auxNodeView(n: Pick<Node, 'status' | 'properties'> | undefined): NodeView | null {
  if (!n) return null;
  if (auxPort(n) === null) return { status: n.status, console: null, why: 'no aux console' };
  return { status: n.status, console: 'aux' };
}
