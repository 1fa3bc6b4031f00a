import { describe, expect, it } from 'vitest';
import { consoleChoice, consoleValue, hasConsole, typeInfo } from './nodetypes';
import { NODE_TYPES, type NodeType } from './types';

describe('node types', () => {
  it('knows every type of the API', () => {
    for (const t of NODE_TYPES) expect(typeInfo(t).title).not.toBe('');
    expect(() => typeInfo('toaster' as NodeType)).toThrow();
  });

  it('gives each type the console choices nodedesk accepts', () => {
    expect(typeInfo('vpcs').consoles).toEqual(['telnet']);
    for (const t of ['ethernet_switch', 'ethernet_hub', 'frame_relay_switch', 'cloud'] as const) {
      expect(typeInfo(t).consoles).toEqual(['none']);
      expect(hasConsole(t)).toBe(false);
    }
    expect(typeInfo('qemu').consoles).toEqual(['telnet', 'vnc', 'http', 'none']);
  });

  it('sends "none" as null', () => {
    expect(consoleValue('none')).toBeNull();
    expect(consoleValue('vnc')).toBe('vnc');
    expect(consoleChoice(null)).toBe('none');
  });

  it('gives the property editor of each type', () => {
    expect(typeInfo('ethernet_switch').editor).toBe('switch');
    expect(typeInfo('frame_relay_switch').editor).toBe('frame_relay');
    expect(typeInfo('nat').editor).toBe('none');
  });
});
