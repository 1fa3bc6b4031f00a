import { describe, expect, it } from 'vitest';
import { initial, moveTab, step, tabLabel, type NodeView, type TabEvent, type TabMachine } from './consoletabs';
import { auxNodeView } from './sideconsoles';
import { backoff } from './live';

const started: NodeView = { status: 'started', console: 'telnet' };
const stopped: NodeView = { status: 'stopped', console: 'telnet' };

/** run feeds events to a machine and collects the effects' kinds. */
function run(m: TabMachine, ...events: TabEvent[]) {
  const effects: string[] = [];
  for (const e of events) {
    const r = step(m, e);
    m = r.next;
    effects.push(...r.effects.map((f) => (f.kind === 'schedule' ? `schedule ${f.ms}` : f.kind)));
  }
  return { m, effects };
}

describe('a console tab', () => {
  it('of a started node connects at once, and is connected once the link opens', () => {
    const { m, effects } = run(initial(), { kind: 'node', node: started }, { kind: 'opened' });
    expect(effects).toEqual(['connect']);
    expect(m.phase).toBe('connected');
    expect(tabLabel(m)).toBe('connected');
  });

  it('of a stopped node waits, saying so, and connects when it starts', () => {
    let r = run(initial(), { kind: 'node', node: stopped });
    expect(r.effects).toEqual([]);
    expect(r.m.phase).toBe('waiting');
    expect(tabLabel(r.m)).toBe('stopped');
    r = run(r.m, { kind: 'node', node: { status: 'suspended', console: 'telnet' } });
    expect(tabLabel(r.m)).toBe('suspended');
    r = run(r.m, { kind: 'node', node: started });
    expect(r.effects).toEqual(['connect']);
    expect(r.m.phase).toBe('connecting');
  });

  it('says when its node stops, and reconnects when it starts again', () => {
    let r = run(initial(), { kind: 'node', node: started }, { kind: 'opened' });
    // The console closes before the news of the stop: a retry is planned …
    r = run(r.m, { kind: 'dropped', reason: 'the console closed the connection' });
    expect(r.effects).toEqual([`schedule ${backoff(0)}`]);
    expect(r.m.phase).toBe('retrying');
    expect(tabLabel(r.m)).toBe('reconnecting…');
    // … the stop arrives: the tab waits, and the due retry does nothing.
    r = run(r.m, { kind: 'node', node: stopped }, { kind: 'retry' });
    expect(r.effects).toEqual([]);
    expect(r.m.phase).toBe('waiting');
    expect(tabLabel(r.m)).toBe('stopped');
    r = run(r.m, { kind: 'node', node: started }, { kind: 'opened' });
    expect(r.effects).toEqual(['connect']);
    expect(r.m.phase).toBe('connected');
  });

  it('closes its link when the news of the stop comes first', () => {
    const r = run(initial(), { kind: 'node', node: started }, { kind: 'opened' }, { kind: 'node', node: stopped });
    expect(r.effects).toEqual(['connect', 'disconnect']);
    expect(r.m.phase).toBe('waiting');
    // The link's late close changes nothing.
    expect(run(r.m, { kind: 'dropped', reason: 'x' }).effects).toEqual([]);
  });

  it('retries a refused connection of a started node, later each time, and starts over once connected', () => {
    let r = run(initial(), { kind: 'node', node: started }, { kind: 'failed', message: 'The console could not be reached' });
    expect(r.effects).toEqual(['connect', `schedule ${backoff(0)}`]);
    expect(r.m.note).toBe('The console could not be reached');
    r = run(r.m, { kind: 'retry' }, { kind: 'failed', message: 'again' }, { kind: 'retry' }, { kind: 'failed', message: 'again' });
    expect(r.effects).toEqual(['connect', `schedule ${backoff(1)}`, 'connect', `schedule ${backoff(2)}`]);
    r = run(r.m, { kind: 'retry' }, { kind: 'opened' }, { kind: 'dropped', reason: 'reset' });
    expect(r.effects).toEqual(['connect', `schedule ${backoff(0)}`]);
  });

  it('is unavailable for a node without a console or deleted, and closes its link', () => {
    let r = run(initial(), { kind: 'node', node: started }, { kind: 'opened' }, { kind: 'node', node: { status: 'started', console: null } });
    expect(r.effects).toEqual(['connect', 'disconnect']);
    expect(r.m.phase).toBe('unavailable');
    expect(tabLabel(r.m)).toBe('no telnet or VNC console');
    r = run(r.m, { kind: 'node', node: null });
    expect(tabLabel(r.m)).toBe('deleted');
    r = run(r.m, { kind: 'node', node: started });
    expect(r.effects).toEqual(['connect']);
  });

  it('says why the page cannot show a console, when it knows', () => {
    const r = run(initial(), { kind: 'node', node: { status: 'started', console: null, why: 'VNC in a browser tab only' } });
    expect(r.effects).toEqual([]);
    expect(r.m.phase).toBe('unavailable');
    expect(tabLabel(r.m)).toBe('VNC in a browser tab only');
  });

  it('of a VNC node connects as a telnet one does, and reconnects when the console type changes', () => {
    const vnc: NodeView = { status: 'started', console: 'vnc' };
    let r = run(initial(), { kind: 'node', node: { status: 'stopped', console: 'vnc' } });
    expect(tabLabel(r.m)).toBe('stopped');
    r = run(r.m, { kind: 'node', node: vnc }, { kind: 'opened' });
    expect(r.effects).toEqual(['connect']);
    expect(r.m.phase).toBe('connected');
    // The same console: nothing to do.
    expect(run(r.m, { kind: 'node', node: { ...vnc } }).effects).toEqual([]);
    r = run(r.m, { kind: 'node', node: started });
    expect(r.effects).toEqual(['disconnect', 'connect']);
    expect(r.m.phase).toBe('connecting');
    expect(r.m.node).toEqual(started);
  });

  it('of an aux console waits for its Docker node, connects when it starts, and says when it has none', () => {
    const box = (status: NodeView['status'], aux: number | null) => auxNodeView({ status, properties: { aux } });
    let r = run(initial(), { kind: 'node', node: box('stopped', 5011) });
    expect(r.effects).toEqual([]);
    expect(tabLabel(r.m)).toBe('stopped');
    r = run(r.m, { kind: 'node', node: box('started', 5011) }, { kind: 'failed', message: 'The aux console could not be reached' });
    expect(r.effects).toEqual(['connect', `schedule ${backoff(0)}`]); // the container's shell may not answer yet
    r = run(r.m, { kind: 'retry' }, { kind: 'opened' });
    expect(r.effects).toEqual(['connect']);
    expect(r.m.phase).toBe('connected');
    r = run(r.m, { kind: 'node', node: box('started', null) });
    expect(r.effects).toEqual(['disconnect']);
    expect(tabLabel(r.m)).toBe('no aux console');
  });

  it('closes a link that opens after it stopped wanting it', () => {
    const r = run(initial(), { kind: 'node', node: stopped }, { kind: 'opened' });
    expect(r.effects).toEqual(['disconnect']);
    expect(r.m.phase).toBe('waiting');
  });
});

describe('moving between tabs', () => {
  it('wraps around both ways and starts at an end', () => {
    const keys = ['a', 'b', 'c'];
    expect(moveTab(keys, 'a', 1)).toBe('b');
    expect(moveTab(keys, 'c', 1)).toBe('a');
    expect(moveTab(keys, 'a', -1)).toBe('c');
    expect(moveTab(keys, null, 1)).toBe('a');
    expect(moveTab(keys, 'gone', -1)).toBe('c');
    expect(moveTab([], 'a', 1)).toBeNull();
  });
});
