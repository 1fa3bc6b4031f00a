import { beforeEach, describe, expect, it } from 'vitest';
import { get } from 'svelte/store';
import { links, setLinks } from './links';
import { nodes, setNodes } from './nodes';
import { applyProjectEvent, currentId, projects } from './projects';
import { applyTopologyEvent } from './topology';
import { notices } from './notices';
import { clearSelection, selectLink, selectNodes, selectedLink, selectedNodes } from './selection';
import { addCompute, applyComputeEvent, computeMap, computes, pickCompute, placeCompute } from './computes';
import { applyTemplateEvent, templateGroups, templates } from './templates';
import { compute, ethSwitch, link, project, vpcs } from '../testdata';
import type { Template } from '../types';

describe('topology stores follow live events', () => {
  beforeEach(() => {
    setNodes([vpcs('pc1'), ethSwitch('sw1')]);
    setLinks([link('l1', ['pc1', 0], ['sw1', 1])]);
  });

  it('adds and updates nodes', () => {
    applyTopologyEvent({ action: 'node.created', event: vpcs('pc2', { name: 'PC2' }) });
    applyTopologyEvent({ action: 'node.updated', event: vpcs('pc1', { name: 'web', x: 77 }) });
    const m = get(nodes);
    expect([...m.keys()]).toEqual(['pc1', 'sw1', 'pc2']);
    expect(m.get('pc1')).toMatchObject({ name: 'web', x: 77 });
  });

  it("says a remote compute's message as a notice, an error for log.error", () => {
    applyTopologyEvent({ action: 'log.error', event: { message: 'PC2 has stopped by itself' } });
    applyTopologyEvent({ action: 'log.info', event: { message: '' } }); // nothing to say
    const said = get(notices).slice(-1)[0];
    expect(said).toMatchObject({ kind: 'error', message: 'PC2 has stopped by itself' });
    applyTopologyEvent({ action: 'log.warning', event: { message: '"VM1" runs slowly', detail: 'Why there is no KVM: no /dev/kvm' } });
    expect(get(notices).slice(-1)[0]).toMatchObject({ kind: 'info', message: '"VM1" runs slowly', detail: 'Why there is no KVM: no /dev/kvm' });
  });

  it('drops a deleted node together with its links', () => {
    applyTopologyEvent({ action: 'node.deleted', event: vpcs('pc1') });
    expect(get(nodes).has('pc1')).toBe(false);
    expect(get(links)).toEqual([]);
  });

  it('adds, updates and deletes links', () => {
    const l2 = link('l2', ['pc1', 0], ['sw1', 2]);
    applyTopologyEvent({ action: 'link.created', event: l2 });
    applyTopologyEvent({ action: 'link.updated', event: { ...l2, suspend: true } });
    expect(get(links).map((l) => [l.link_id, l.suspend])).toEqual([['l1', false], ['l2', true]]);
    applyTopologyEvent({ action: 'link.deleted', event: l2 });
    expect(get(links).map((l) => l.link_id)).toEqual(['l1']);
  });

  it('ignores a second delete of the same thing', () => {
    applyTopologyEvent({ action: 'link.deleted', event: link('l1', ['pc1', 0], ['sw1', 1]) });
    const before = get(links);
    applyTopologyEvent({ action: 'link.deleted', event: link('l1', ['pc1', 0], ['sw1', 1]) });
    expect(get(links)).toBe(before);
  });
});

describe('project list follows live events', () => {
  beforeEach(() => {
    projects.set([project('p1', { name: 'b-lab' })]);
    currentId.set('p1');
  });

  it('keeps the list sorted by name as projects come and change', () => {
    applyProjectEvent({ action: 'project.created', event: project('p2', { name: 'a-lab' }) });
    applyProjectEvent({ action: 'project.closed', event: project('p1', { name: 'b-lab', status: 'closed' }) });
    expect(get(projects).map((p) => [p.name, p.status])).toEqual([['a-lab', 'opened'], ['b-lab', 'closed']]);
  });

  it('leaves a project that was deleted elsewhere', () => {
    applyProjectEvent({ action: 'project.deleted', event: project('p1') });
    expect(get(projects)).toEqual([]);
    expect(get(currentId)).toBeNull();
  });
});

describe('selection', () => {
  it('holds nodes or one link, never both', () => {
    selectNodes(['a', 'b']);
    expect([...get(selectedNodes)]).toEqual(['a', 'b']);
    selectLink('l1');
    expect(get(selectedNodes).size).toBe(0);
    expect(get(selectedLink)).toBe('l1');
    selectNodes(['a']);
    expect(get(selectedLink)).toBeNull();
    clearSelection();
    expect(get(selectedNodes).size).toBe(0);
  });

  it('does not notify when the same nodes are selected again', () => {
    selectNodes(['a', 'b']);
    const before = get(selectedNodes);
    selectNodes(['b', 'a']);
    expect(get(selectedNodes)).toBe(before);
  });
});

import { drawings, moveDrawing, setDrawings } from './drawings';
import { useEnv } from '../api';

describe('drawings follow live events', () => {
  const d = { drawing_id: 'd1', project_id: 'p', svg: '<svg></svg>', x: 0, y: 0, z: 2, locked: false, rotation: 0 };

  it('adds, updates (keeping the svg an update leaves out) and deletes', () => {
    setDrawings([]);
    applyTopologyEvent({ action: 'drawing.created', event: d });
    applyTopologyEvent({ action: 'drawing.updated', event: { ...d, svg: undefined, x: 40 } });
    expect(get(drawings).get('d1')).toEqual({ ...d, x: 40 });
    applyTopologyEvent({ action: 'drawing.updated', event: { ...d, drawing_id: 'unknown', svg: undefined } });
    expect(get(drawings).has('unknown')).toBe(false);
    applyTopologyEvent({ action: 'drawing.deleted', event: d });
    expect(get(drawings).size).toBe(0);
  });

  it('a PUT answered after the drawing\'s deletion does not bring it back', async () => {
    setDrawings([d]);
    let answer: (r: Response) => void = () => {};
    useEnv({ fetch: () => new Promise<Response>((r) => (answer = r)), location: { protocol: 'http:', host: '127.0.0.1:3080' } });
    const moved = moveDrawing('p', 'd1', { x: 50 });
    expect(get(drawings).get('d1')?.x).toBe(50); // at once
    applyTopologyEvent({ action: 'drawing.deleted', event: d }); // another client, before the answer
    answer(new Response(JSON.stringify({ ...d, x: 50 }), { status: 201, headers: { 'Content-Type': 'application/json' } }));
    await moved;
    expect(get(drawings).has('d1')).toBe(false);
  });
});

describe('computes follow the controller stream', () => {
  beforeEach(() => {
    computes.set([compute('local')]);
    pickCompute('local');
  });

  it('adds, updates (local stays first) and removes computes', () => {
    applyComputeEvent({ action: 'compute.created', event: compute('c1', { name: 'A', connected: false }) });
    applyComputeEvent({ action: 'compute.updated', event: compute('c1', { name: 'A', connected: true }) });
    expect(get(computes).map((c) => [c.compute_id, c.connected])).toEqual([['local', true], ['c1', true]]);
    expect(get(computeMap).get('c1')?.name).toBe('A');
    applyComputeEvent({ action: 'compute.deleted', event: compute('c1') });
    expect(get(computes).map((c) => c.compute_id)).toEqual(['local']);
  });

  it('puts new nodes back on local when the compute picked is removed', () => {
    applyComputeEvent({ action: 'compute.created', event: compute('c1', { name: 'A' }) });
    pickCompute('c1');
    expect(get(placeCompute)).toBe('c1');
    applyComputeEvent({ action: 'compute.deleted', event: compute('c1') });
    expect(get(placeCompute)).toBe('local');
  });

  it('leaves the project list alone, and the projects leave the computes alone', () => {
    projects.set([]);
    applyProjectEvent({ action: 'compute.created', event: compute('c1') });
    applyComputeEvent({ action: 'project.created', event: project('p9') });
    expect(get(projects)).toEqual([]);
    expect(get(computes).map((c) => c.compute_id)).toEqual(['local']);
  });

  it('a node that comes back connected is drawn from the event as it is', () => {
    setNodes([vpcs('pc1', { compute_id: 'c1', compute_connected: true, status: 'started' })]);
    applyTopologyEvent({ action: 'node.updated', event: vpcs('pc1', { compute_id: 'c1', compute_connected: false, status: 'stopped' }) });
    expect(get(nodes).get('pc1')).toMatchObject({ compute_connected: false, status: 'stopped' });
    applyTopologyEvent({ action: 'node.updated', event: vpcs('pc1', { compute_id: 'c1', compute_connected: true, status: 'started' }) });
    expect(get(nodes).get('pc1')).toMatchObject({ compute_connected: true, status: 'started' });
  });
});

describe('a compute write answered after its events', () => {
  it('keeps the connection the events told, and takes the settings answered', async () => {
    computes.set([compute('local')]);
    const answer = compute('c1', { name: 'B', port: 3081, connected: false });
    const { useEnv } = await import('../api');
    useEnv({
      fetch: async () => new Response(JSON.stringify(answer), { status: 201, headers: { 'Content-Type': 'application/json' } }),
      location: { protocol: 'http:', host: '127.0.0.1:3080' },
    });
    // The compute connected (compute.updated) before POST answered.
    const created = addCompute({ protocol: 'http', host: '127.0.0.1', port: 3081 });
    applyComputeEvent({ action: 'compute.created', event: compute('c1', { name: 'B', port: 3081, connected: true, cpu_usage_percent: 5 }) });
    await created;
    expect(get(computes).find((c) => c.compute_id === 'c1')).toMatchObject({ name: 'B', connected: true, cpu_usage_percent: 5 });
  });
});

describe('templates follow the controller stream', () => {
  const tpl = (id: string, over: Partial<Template> = {}): Template => ({
    template_id: id, name: id, template_type: 'qemu', category: 'guest', compute_id: 'local', default_name_format: '{name}-{0}',
    symbol: ':/symbols/qemu_guest.svg', builtin: false, ...over,
  });

  beforeEach(() => {
    templates.set([tpl('vpcs', { template_type: 'vpcs', builtin: true, name: 'VPCS' }), tpl('t1', { name: 'Alpine' })]);
  });

  it('shows a template made elsewhere at once, in its group, and follows its changes and removal', () => {
    applyTemplateEvent({ action: 'template.created', event: tpl('t2', { name: 'VyOS', category: 'router' }) });
    expect(get(templates).map((t) => t.template_id)).toEqual(['vpcs', 't1', 't2']);
    expect(get(templateGroups).find((g) => g.key === 'router')?.templates.map((t) => t.name)).toEqual(['VyOS']);
    applyTemplateEvent({ action: 'template.updated', event: tpl('t1', { name: 'Alpine 3.20' }) });
    expect(get(templates).map((t) => t.name)).toEqual(['VPCS', 'Alpine 3.20', 'VyOS']);
    applyTemplateEvent({ action: 'template.deleted', event: tpl('t2', { name: 'VyOS', category: 'router' }) });
    expect(get(templates).map((t) => t.template_id)).toEqual(['vpcs', 't1']);
  });

  it('takes a created template it already has (its own POST answered first) once', () => {
    applyTemplateEvent({ action: 'template.created', event: tpl('t1', { name: 'Alpine' }) });
    expect(get(templates).map((t) => t.template_id)).toEqual(['vpcs', 't1']);
  });

  it('leaves the other stores alone, and they leave it alone', () => {
    projects.set([]);
    computes.set([compute('local')]);
    applyProjectEvent({ action: 'template.created', event: tpl('t9') });
    applyComputeEvent({ action: 'template.created', event: tpl('t9') });
    applyTopologyEvent({ action: 'template.deleted', event: tpl('t1') });
    applyTemplateEvent({ action: 'project.created', event: project('p9') });
    applyTemplateEvent({ action: 'compute.created', event: compute('c9') });
    expect(get(projects)).toEqual([]);
    expect(get(computes).map((c) => c.compute_id)).toEqual(['local']);
    expect(get(templates).map((t) => t.template_id)).toEqual(['vpcs', 't1']);
  });
});
