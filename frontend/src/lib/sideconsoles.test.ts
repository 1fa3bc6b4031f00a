import { describe, expect, it } from 'vitest';
import { auxCommand, auxNodeView, webConsole } from './sideconsoles';
import { vpcs } from './testdata';
import type { Node } from './types';

/** A container with an aux console (5011), as a node of the API. */
const container = (over: Partial<Node> = {}, props: Record<string, unknown> = {}): Node =>
  vpcs('d1', {
    name: 'busybox-1', node_type: 'docker', console: 5010, console_type: 'telnet',
    properties: {
      image: 'nodedesk-test/busybox:latest', adapters: 2, start_command: '', environment: 'A=1', extra_hosts: '', extra_volumes: ['/data'],
      console_resolution: '1024x768', console_http_port: 80, console_http_path: '/', mac_address: '', aux: 5011, usage: '', ...props,
    },
    ...over,
  });

describe("a node's other consoles", () => {
  it('gives the aux console as a telnet command on the console host', () => {
    expect(auxCommand(container())).toEqual({ host: '127.0.0.1', port: 5011, command: 'telnet 127.0.0.1 5011' });
    expect(auxCommand(container({ console_host: '0.0.0.0' }))?.command).toBe('telnet 127.0.0.1 5011');
    expect(auxCommand(container({ console_host: '::1' }))?.command).toBe('telnet [::1] 5011');
    expect(auxCommand(container({}, { aux: null }))).toBeNull();
  });

  it('gives its aux tab its aux console to connect to while it runs, to wait for while it does not', () => {
    expect(auxNodeView(container({ status: 'started' }))).toEqual({ status: 'started', console: 'aux' });
    expect(auxNodeView(container())).toEqual({ status: 'stopped', console: 'aux' });
    expect(auxNodeView(container({ status: 'started' }, { aux: 0 }))).toEqual({ status: 'started', console: null, why: 'no aux console' });
    expect(auxNodeView(container({}, { aux: null }))?.console).toBeNull();
    expect(auxNodeView(undefined)).toBeNull();
  });

  it('opens a web console at its port and console_http_path, as GNS3 does', () => {
    expect(webConsole(container({ console_type: 'http', console: 5012 }, { console_http_path: '/admin' }))).toBe('http://127.0.0.1:5012/admin');
    expect(webConsole(container({ console_type: 'http', console: 5012 }, { console_http_path: 'index.html' }))).toBe('http://127.0.0.1:5012/index.html');
    expect(webConsole(container({ console_type: 'https' as Node['console_type'], console: 5012, console_host: '192.0.2.7' }, { console_http_path: '' }))).toBe('https://192.0.2.7:5012/');
    expect(webConsole(container())).toBeNull();
    expect(webConsole(container({ console_type: 'http', console: null }))).toBeNull();
  });
});
