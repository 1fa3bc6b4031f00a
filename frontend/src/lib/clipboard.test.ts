import { describe, expect, it } from 'vitest';
import { clipOf, describeClip, drawingCopy, labelFix, linkCopy, nodeCopy } from './clipboard';
import { ethSwitch, link, vpcs } from './testdata';
import type { Drawing } from './types';

const pc1 = vpcs('pc1', { name: 'PC1', label: { text: 'PC1', style: null, x: null, y: -40, rotation: 0 }, x: 10, y: 20, properties: { startup_script: 'ip 10.0.0.1/24', startup_script_path: null } });
const pc2 = vpcs('pc2', { name: 'PC2', console: 5001, label: { text: 'PC2', style: 'bold', x: 5, y: -30, rotation: 0 } });
const sw = ethSwitch('sw1', { label: { text: 'core', style: null, x: null, y: -40, rotation: 0 } });
const nodes = new Map([pc1, pc2, sw].map((n) => [n.node_id, n]));
const links = [link('l1', ['pc1', 0], ['sw1', 1]), link('l2', ['pc2', 0], ['sw1', 2]), link('l3', ['pc1', 0], ['pc2', 0])];
const note: Drawing = { drawing_id: 'd1', project_id: 'p1', svg: '<svg/>', x: 1, y: 2, z: 3, rotation: 0, locked: true };

describe('copy', () => {
  it('keeps the selected nodes and only the links whose two ends are selected', () => {
    const c = clipOf(['pc1', 'sw1'], nodes, links)!;
    expect(c.nodes.map((n) => n.node_id)).toEqual(['pc1', 'sw1']);
    expect(c.links.map((l) => l.link_id)).toEqual(['l1']);
    expect(describeClip(c)).toBe('PC1, Switch1 and 1 link');
  });
  it('is a copy: later changes of the originals do not reach it', () => {
    const c = clipOf(['pc1'], nodes, links)!;
    pc1.properties.startup_script = 'changed';
    expect(c.nodes[0].properties.startup_script).toBe('ip 10.0.0.1/24');
    pc1.properties.startup_script = 'ip 10.0.0.1/24';
  });
  it('takes selected drawings, and nothing when nothing is selected', () => {
    const c = clipOf([], nodes, links, ['d1'], new Map([['d1', note]]))!;
    expect(c.drawings).toHaveLength(1);
    expect(describeClip(c)).toBe('1 drawing');
    expect(clipOf(['gone'], nodes, links)).toBeNull();
  });
});

describe('paste bodies', () => {
  it('creates a node of the same type and settings, offset, asking the original name (the server makes it free)', () => {
    const body = nodeCopy(pc1, 40, 40) as Record<string, unknown>;
    expect(body).toMatchObject({ node_type: 'vpcs', name: 'PC1', x: 50, y: 60, console_type: 'telnet', symbol: ':/symbols/vpcs_guest.svg' });
    expect(body.properties).toEqual({ startup_script: 'ip 10.0.0.1/24', startup_script_path: null });
    for (const k of ['node_id', 'project_id', 'console', 'status', 'ports', 'node_directory', 'command_line', 'label', 'locked']) expect(body).not.toHaveProperty(k);
  });
  it('copies the compute a node runs on, not whether it is connected (no field of NodeCreate)', () => {
    const body = nodeCopy(vpcs('r1', { compute_id: 'c1', compute_connected: false }), 0, 0) as Record<string, unknown>;
    expect(body.compute_id).toBe('c1');
    expect(body).not.toHaveProperty('compute_connected');
  });
  it('keeps a label that is not the name; one that is follows the copy\'s name, in the original\'s place', () => {
    expect((nodeCopy(sw, 0, 0) as Record<string, unknown>).label).toEqual(sw.label);
    expect(labelFix(sw, { ...sw, name: 'Switch2' })).toBeNull();
    const copy = vpcs('pc9', { name: 'PC3' }); // the server's default label
    expect(labelFix(pc2, copy)).toEqual({ label: { text: 'PC3', style: 'bold', x: 5, y: -30, rotation: 0 } });
    expect(labelFix(pc1, vpcs('pc8', { name: 'PC4', label: { ...pc1.label, text: 'PC4' } }))).toBeNull();
  });
  it('links the copies on the same adapter and port numbers; a link with an end not copied is none', () => {
    const ids = new Map([['pc1', 'n1'], ['sw1', 'n2']]);
    expect(linkCopy(links[0], ids)).toEqual({
      nodes: [{ node_id: 'n1', adapter_number: 0, port_number: 0 }, { node_id: 'n2', adapter_number: 0, port_number: 1 }],
    });
    expect(linkCopy(links[1], ids)).toBeNull();
    const suspended = { ...links[0], suspend: true, filters: { delay: [10] } };
    expect(linkCopy(suspended, ids)).toMatchObject({ suspend: true, filters: { delay: [10] } });
  });
  it('copies a drawing offset and unlocked', () => {
    expect(drawingCopy(note, 40, 80)).toEqual({ svg: '<svg/>', x: 41, y: 82, z: 3, rotation: 0, locked: false });
  });
});
