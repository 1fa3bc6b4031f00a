import { describe, expect, it } from 'vitest';
import { consoleChoice, consoleChoices, consoleDefault, consoleValue, hasConsole, runnable } from './nodetypes';
import type { NodeTypeInfo } from './types';

const info = (over: Partial<NodeTypeInfo>): NodeTypeInfo => ({
  node_type: 'qemu', console_types: ['telnet', 'vnc', 'http', null], lifecycle: 'process', properties: null,
  compute_view: false, default_name_format: 'QEMU{0}', symbol: ':/symbols/qemu_guest.svg', traffic: '', runs: true, ...over,
});

describe('node types', () => {
  it("offers the server's console default", () => {
    expect(consoleDefault(info({ console_types: ['telnet', 'vnc', null] }))).toBe('telnet');
    expect(consoleDefault(undefined)).toBeNull();
  });

  it('offers the console choices the server lists, in its order', () => {
    expect(consoleChoices(info({}))).toEqual(['telnet', 'vnc', 'http', 'none']);
    expect(consoleChoices(info({ node_type: 'virtualbox', console_types: [null, 'telnet'] }))).toEqual(['none', 'telnet']);
    expect(hasConsole(info({ node_type: 'ethernet_switch', console_types: [null] }))).toBe(false);
    expect(consoleChoices(undefined)).toEqual([]);
  });

  it('knows what can be started from the lifecycle', () => {
    expect(runnable(info({}))).toBe(true);
    expect(runnable(info({ lifecycle: 'always_running' }))).toBe(false);
    expect(runnable(info({ runs: false }))).toBe(false); // kept for GNS3, not run here: no Start
    expect(runnable(undefined)).toBeUndefined();
  });

  it('sends "none" as null', () => {
    expect(consoleValue('none')).toBeNull();
    expect(consoleValue('vnc')).toBe('vnc');
    expect(consoleChoice(null)).toBe('none');
  });
});
