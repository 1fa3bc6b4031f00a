import { describe, expect, it } from 'vitest';
import { bounds, linkSegments, minimapPaths, minimapView, nearestSegment, nudged, segmentsPath, toFlowEdges, toFlowNodes } from './layout';
import { ethSwitch, link, vpcs } from './testdata';

describe('canvas layout', () => {
  const pc = vpcs('pc1', { x: 10, y: 20 });
  const sw = ethSwitch('sw1', { x: 200, y: 100 });

  it('places nodes at their x/y, with selection', () => {
    const f = toFlowNodes([pc, sw], [], new Set(['sw1']));
    expect(f.map((n) => [n.id, n.position, n.selected])).toEqual([['pc1', { x: 10, y: 20 }, false], ['sw1', { x: 200, y: 100 }, true]]);
  });

  it('keeps a dragged node where the user holds it until saved', () => {
    const f = toFlowNodes([pc], [], new Set(), new Map([['pc1', { x: 99, y: 98 }]]));
    expect(f[0].position).toEqual({ x: 99, y: 98 });
  });

  it('reuses unchanged canvas nodes and keeps their measured size', () => {
    const first = toFlowNodes([pc, sw], [], new Set());
    first[1] = { ...first[1], measured: { width: 60, height: 70 } };
    const second = toFlowNodes([pc, { ...sw, name: 'core' }], first, new Set());
    expect(second[0]).toBe(first[0]);
    expect(second[1].measured).toEqual({ width: 60, height: 70 });
    expect(second[1].data.node.name).toBe('core');
  });

  it('draws links between existing nodes, labelled with port names', () => {
    const nodes = new Map([[pc.node_id, pc], [sw.node_id, sw]]);
    const e = toFlowEdges([link('l1', ['pc1', 0], ['sw1', 3]), link('l2', ['pc1', 0], ['gone', 1])], nodes, 'l1');
    expect(e).toHaveLength(1);
    expect(e[0]).toMatchObject({ id: 'l1', source: 'pc1', target: 'sw1', selected: true, data: { sourceLabel: 'e0', targetLabel: 'e3' } });
  });

  it('keeps unchanged edges, so that a node event redraws only what changed', () => {
    const nodes = new Map([[pc.node_id, pc], [sw.node_id, sw]]);
    const l1 = link('l1', ['pc1', 0], ['sw1', 3]);
    const l2 = link('l2', ['pc1', 0], ['sw1', 4]);
    const first = toFlowEdges([l1, l2], nodes, null);
    const moved = new Map(nodes).set(pc.node_id, { ...pc, x: 500 });
    const second = toFlowEdges([l1, l2], moved, 'l2', first);
    expect(second[0]).toBe(first[0]);
    expect(second[1]).not.toBe(first[1]);
    expect(second[1].selected).toBe(true);
  });

  it('places links for the link layer centre to centre, and finds the one clicked', () => {
    const at = new Map([['pc1', { x: 0, y: 0 }], ['sw1', { x: 200, y: 0 }]]);
    const segs = linkSegments([link('l1', ['pc1', 0], ['sw1', 3]), link('l2', ['pc1', 0], ['gone', 1])], at);
    expect(segs).toEqual([{ id: 'l1', a: { x: 44, y: 25.5 }, b: { x: 244, y: 25.5 } }]);
    expect(segmentsPath(segs)).toBe('M44 26L244 26');
    expect(nearestSegment(segs, { x: 100, y: 30 }, 8)?.id).toBe('l1');
    expect(nearestSegment(segs, { x: 100, y: 60 }, 8)).toBeNull();
    expect(nearestSegment(segs, { x: 250, y: 25 }, 8)?.id).toBe('l1');
  });

  it('nudges on whole pixels and bounds positions', () => {
    expect(nudged({ x: 1.4, y: 2 }, 10, -1)).toEqual({ x: 11, y: 1 });
    expect(bounds([])).toBeNull();
    expect(bounds([{ x: 1, y: 5 }, { x: -3, y: 2 }])).toEqual({ minX: -3, minY: 2, maxX: 1, maxY: 5 });
  });
});

import { endLabelPoints } from './layout';

describe('link port labels', () => {
  it('sit a fixed distance in from each end', () => {
    expect(endLabelPoints({ x: 0, y: 0 }, { x: 300, y: 0 }, 40)).toEqual({ source: { x: 40, y: 0 }, target: { x: 260, y: 0 } });
  });
  it('go further down where a link leaves a node downwards, past its name', () => {
    expect(endLabelPoints({ x: 0, y: 0 }, { x: 0, y: 300 }, 40, 30)).toEqual({ source: { x: 0, y: 70 }, target: { x: 0, y: 260 } });
    expect(endLabelPoints({ x: 0, y: 300 }, { x: 0, y: 0 }, 40, 30)).toEqual({ source: { x: 0, y: 260 }, target: { x: 0, y: 70 } });
  });
  it('move closer to the ends on short links, and cope with zero length', () => {
    expect(endLabelPoints({ x: 0, y: 0 }, { x: 0, y: 60 }, 40)).toEqual({ source: { x: 0, y: 20 }, target: { x: 0, y: 40 } });
    expect(endLabelPoints({ x: 5, y: 5 }, { x: 5, y: 5 })).toEqual({ source: { x: 5, y: 5 }, target: { x: 5, y: 5 } });
  });
});

describe('dragging', () => {
  it('keeps a node being dragged where the pointer is when an update arrives', () => {
    const pc = vpcs('pc1', { x: 10, y: 20 });
    const prev = toFlowNodes([pc], [], new Set());
    prev[0] = { ...prev[0], dragging: true, position: { x: 300, y: 300 } };
    const next = toFlowNodes([{ ...pc, name: 'renamed' }], prev, new Set());
    expect(next[0].position).toEqual({ x: 300, y: 300 });
  });
});

describe('minimap', () => {
  it('draws one path per colour', () => {
    const m = minimapPaths([
      { key: 'green', x: 0, y: 0, width: 88, height: 72 },
      { key: 'grey', x: 100.4, y: 50, width: 88, height: 72 },
      { key: 'green', x: 200, y: 0, width: 88, height: 72 },
    ]);
    expect(m.get('green')).toBe('M0 0h88v72h-88zM200 0h88v72h-88z');
    expect(m.get('grey')).toBe('M100 50h88v72h-88z');
  });

  it('frames the nodes and the view, centred, 5 px around', () => {
    const v = minimapView({ x: 0, y: 0, width: 1000, height: 500 }, { x: 0, y: 0, width: 400, height: 300 }, 200, 100);
    expect(v.scale).toBe(5);
    expect(v).toEqual({ x: -25, y: -25, width: 1050, height: 550, scale: 5 });
    const far = minimapView(null, { x: 10, y: 10, width: 100, height: 100 }, 100, 100);
    expect(far).toEqual({ x: 5, y: 5, width: 110, height: 110, scale: 1 });
  });
});

import { LINK_LAYER_Z, linkZ, stackZ, toDrawingNodes } from './layout';
import type { Drawing } from './types';

describe('drawings on the canvas', () => {
  const drawing = (id: string, over: Partial<Drawing> = {}): Drawing => ({
    drawing_id: id, project_id: 'p', svg: `<svg width="200" height="4">${id}</svg>`, x: 10, y: 20, z: 2, locked: false, rotation: 0, ...over,
  });
  const parse = (svg: string) => ({ width: svg.includes('200') ? 200 : 0, height: 4, shapes: [], dropped: false });

  it('places drawings by x, y and z; a locked one cannot be dragged; a thin one can still be grabbed', () => {
    const [a, b] = toDrawingNodes([drawing('a'), drawing('b', { z: 0, locked: true })], [], new Set(['b']), parse);
    expect(a).toMatchObject({ id: 'a', type: 'drawing', position: { x: 10, y: 20 }, zIndex: 4, draggable: true, width: 200, height: 8, selected: false });
    expect(b).toMatchObject({ zIndex: 0, draggable: false, selected: true });
  });

  it('keeps an unchanged drawing, and its picture while its svg is the same', () => {
    const d = drawing('a');
    const first = toDrawingNodes([d], [], new Set(), parse);
    expect(toDrawingNodes([d], first, new Set(), parse)[0]).toBe(first[0]);
    const moved = toDrawingNodes([{ ...d, x: 99 }], first, new Set(), () => { throw new Error('parsed again'); });
    expect(moved[0].position).toEqual({ x: 99, y: 20 });
    expect(moved[0].data.picture).toBe(first[0].data.picture);
  });
});

describe('stacking, as GNS3 stacks its scene', () => {
  it('draws a link above a shape at z=0 and below both its nodes', () => {
    const a = vpcs('a', { z: 1 });
    const b = vpcs('b', { z: 3 });
    const nodes = new Map([['a', a], ['b', b]]);
    const [edge] = toFlowEdges([link('l1', ['a', 0], ['b', 0])], nodes, null);
    const [na, nb] = toFlowNodes([a, b], [], new Set());
    const [shape] = toDrawingNodes([{ drawing_id: 'd', project_id: 'p', svg: '<svg/>', x: 0, y: 0, z: 0, locked: false, rotation: 0 }], [], new Set(), () => ({ width: 10, height: 10, shapes: [], dropped: false }));
    expect(edge.zIndex).toBeGreaterThan(shape.zIndex ?? 0);
    expect(edge.zIndex).toBeLessThan(na.zIndex ?? 0);
    expect(edge.zIndex).toBeLessThan(nb.zIndex ?? 0);
  });

  it('keeps a shape raised above the nodes above their links too', () => {
    expect(stackZ(2)).toBeGreaterThan(linkZ(1, 1));
    expect(stackZ(1)).toBeGreaterThan(LINK_LAYER_Z);
    expect(stackZ(0)).toBeLessThan(LINK_LAYER_Z);
  });
});
