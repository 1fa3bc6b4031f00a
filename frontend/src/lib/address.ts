// The addresses the page gives the user to dial: a node's console host as
// a terminal or a browser reaches it.

/** dialHost is the host to dial for a node's console_host: an address
 * bound to every interface is reached on loopback, an IPv6 one in
 * brackets. */
export function dialHost(h: string | null | undefined): string {
  return !h || h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h.includes(':') ? `[${h}]` : h;
}
