import { describe, expect, it } from 'vitest';
import { allOf, type NodeType } from '../lib/types';
import { findKind, kinds, kindOf, templateKinds } from './index';
import FrameRelayEditor from './frame_relay_switch/Editor.svelte';
import NatEditor from './nat/Editor.svelte';
import SwitchEditor from './ethernet_switch/Editor.svelte';

/** The contract's node types. */
const NODE_TYPES = allOf<NodeType>()([
  'cloud', 'nat', 'ethernet_hub', 'ethernet_switch', 'frame_relay_switch', 'atm_switch',
  'docker', 'dynamips', 'vpcs', 'traceng', 'virtualbox', 'vmware', 'iou', 'qemu',
]);

describe('the node-type registry', () => {
  it('shows every type of the API', () => {
    for (const t of NODE_TYPES) expect(kindOf(t).title).not.toBe('');
    expect(() => kindOf('toaster' as NodeType)).toThrow();
  });

  it('gives the property editor of each type', () => {
    expect(kindOf('ethernet_switch').Editor).toBe(SwitchEditor);
    expect(kindOf('frame_relay_switch').Editor).toBe(FrameRelayEditor);
    expect(kindOf('nat').Editor).toBe(NatEditor);
  });

  it('has one entry per type of the API, and no other', () => {
    expect(kinds.map((k) => k.type).sort()).toEqual([...NODE_TYPES].sort());
    expect(findKind('toaster')).toBeUndefined();
  });

  it('keeps the palette\'s order of the built-in devices and of the template dialogs', () => {
    const builtins = kinds.filter((k) => k.paletteRank !== undefined).sort((a, b) => a.paletteRank! - b.paletteRank!).map((k) => k.type);
    expect(builtins).toEqual(['vpcs', 'ethernet_switch', 'ethernet_hub', 'frame_relay_switch', 'atm_switch', 'cloud', 'nat']);
    expect(templateKinds.map((k) => k.template?.button.testid)).toEqual(['new-qemu-template', 'new-docker-template', 'new-ios-template']);
  });
});
