// The NAT panel's words for allow_host_loopback: what the box lets the
// lab do, and what it does not without it.

export const NAT_LOOPBACK_LABEL = 'Let the lab reach services that listen only on this computer (127.0.0.1)';
export const NAT_LOOPBACK_HINT =
  'Off, the lab reaches this computer at 192.168.122.1 only where a service listens on its network addresses, as in GNS3. nodedesk\'s own API stays out of reach either way.';
