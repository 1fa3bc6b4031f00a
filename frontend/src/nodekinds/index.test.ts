import { describe, expect, it } from 'vitest';
import contract from '../../../api/openapi.json';
import { allOf, type NodeType } from '../lib/types';
import { findKind, kinds, kindOf, settingsKinds, templateKinds } from './index';
import type { NodeKind } from './kind';
import FrameRelayEditor from './frame_relay_switch/Editor.svelte';
import NatEditor from './nat/Editor.svelte';
import SwitchEditor from './ethernet_switch/Editor.svelte';

/** The contract's node types. */
const NODE_TYPES = allOf<NodeType>()([
  'cloud', 'nat', 'ethernet_hub', 'ethernet_switch', 'frame_relay_switch', 'atm_switch',
  'docker', 'dynamips', 'vpcs', 'traceng', 'virtualbox', 'vmware', 'iou', 'qemu',
]);

/** The entries by their folders (./<type>/index.ts). */
const folders = import.meta.glob<NodeKind>('./*/index.ts', { eager: true, import: 'default' });

describe('the node-type registry', () => {
  it("keeps each entry in the folder named by its type, with a form part exactly when it has an editor", () => {
    expect(Object.keys(folders).length).toBe(kinds.length);
    for (const [path, k] of Object.entries(folders)) {
      expect(path).toBe(`./${k.type}/index.ts`);
      expect(!!k.form, k.type).toBe(!!k.Editor);
    }
  });

  it('shows every type of the API', () => {
    for (const t of NODE_TYPES) expect(kindOf(t).title).not.toBe('');
  });

  it("shows a type it does not know (a newer server's) by its name, with nothing to edit", () => {
    const k = kindOf('toaster');
    expect(k).toEqual({ type: 'toaster', title: 'toaster', order: Infinity });
    expect(k.form).toBeUndefined();
    expect(k.Editor).toBeUndefined();
    expect(k.template).toBeUndefined();
  });

  it('gives the property editor of each type', () => {
    expect(kindOf('ethernet_switch').Editor).toBe(SwitchEditor);
    expect(kindOf('frame_relay_switch').Editor).toBe(FrameRelayEditor);
    expect(kindOf('nat').Editor).toBe(NatEditor);
  });

  it("has one entry per node type of the contract (api/openapi.json's NodeType), and no other", () => {
    const types: string[] = contract.components.schemas.NodeType.enum;
    expect(types.length).toBeGreaterThan(10);
    expect(kinds.map((k) => k.type).sort()).toEqual([...types].sort());
  });

  it('has one entry per type of the API, and no other', () => {
    expect(kinds.map((k) => k.type).sort()).toEqual([...NODE_TYPES].sort());
    expect(findKind('toaster')).toBeUndefined();
  });

  it('keeps the palette\'s order of the built-in devices and of the template dialogs', () => {
    const builtins = kinds.filter((k) => k.paletteRank !== undefined).sort((a, b) => a.paletteRank! - b.paletteRank!).map((k) => k.type);
    expect(builtins).toEqual(['vpcs', 'ethernet_switch', 'ethernet_hub', 'frame_relay_switch', 'atm_switch', 'cloud', 'nat']);
    expect(templateKinds.map((k) => k.template?.button.testid)).toEqual(['new-qemu-template', 'new-docker-template', 'new-ios-template', 'new-iou-template']);
  });

  it('gives the settings dialog the sections of the types that have one', () => {
    expect(settingsKinds.map((k) => [k.type, k.settings?.testid])).toEqual([['iou', 'iou-licence']]);
  });
});
