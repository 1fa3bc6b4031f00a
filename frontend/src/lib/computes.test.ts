import { describe, expect, it } from 'vitest';
import {
  LOCAL, computeAddress, computeChoices, computeName, computeState, createBody, emptyForm, formField, formFromCompute,
  linkUnreachable, nodeUnreachable, pickedCompute, sortComputes, unreachableTitle, updateBody,
} from './computes';
import { compute, link, vpcs } from './testdata';

const remote = (over = {}) => compute('c1', { name: 'B', host: '10.0.0.2', port: 3081, ...over });

describe('a compute in words', () => {
  it('has its address, with an IPv6 host in brackets', () => {
    expect(computeAddress(remote())).toBe('http://10.0.0.2:3081');
    expect(computeAddress(remote({ protocol: 'https', host: '::1' }))).toBe('https://[::1]:3081');
    expect(computeAddress(remote({ host: '[::1]' }))).toBe('http://[::1]:3081');
  });

  it('is "Connected" with its load when known, and nothing about a load it has not reported', () => {
    expect(computeState(remote({ cpu_usage_percent: 12.4, memory_usage_percent: 40.6 }))).toEqual({ connected: true, label: 'Connected', usage: 'CPU 12 % · memory 41 %' });
    expect(computeState(remote({ cpu_usage_percent: 0, memory_usage_percent: null })).usage).toBe('CPU 0 %');
    expect(computeState(remote()).usage).toBeNull();
  });

  it('is "Not connected — <last_error>" when lost, with no stale load', () => {
    const s = computeState(remote({ connected: false, last_error: 'connection refused', cpu_usage_percent: 3 }));
    expect(s).toEqual({ connected: false, label: 'Not connected — connection refused', usage: null });
    expect(computeState(remote({ connected: false, last_error: '  ' })).label).toBe('Not connected');
  });
});

describe('the list and the picker', () => {
  const list = [remote({ name: 'zeta' }), compute('c2', { name: 'alpha', connected: false }), compute(LOCAL, { name: 'local' })];

  it('lists local first, then by name', () => {
    expect(sortComputes(list).map((c) => c.name)).toEqual(['local', 'alpha', 'zeta']);
  });

  it('offers no picker for local alone, and says which compute is not connected', () => {
    expect(computeChoices([compute()])).toEqual([]);
    expect(computeChoices(list)).toEqual([
      { id: LOCAL, label: 'local', connected: true },
      { id: 'c2', label: 'alpha (not connected)', connected: false },
      { id: 'c1', label: 'zeta', connected: true },
    ]);
  });

  it('says which compute is local when it has the host\'s name', () => {
    expect(computeChoices([compute(LOCAL, { name: 'vm' }), remote()])[0].label).toBe('vm (local)');
  });

  it('puts new nodes on the compute picked while it exists, else on local', () => {
    expect(pickedCompute(list, 'c2')).toBe('c2');
    expect(pickedCompute(list, 'gone')).toBe(LOCAL);
  });
});

describe('unreachable nodes and links', () => {
  const m = new Map([['c1', remote({ connected: false, last_error: 'connection refused' })]]);

  it('a node of a compute that is not connected says which', () => {
    const n = vpcs('pc1', { name: 'PC1', compute_id: 'c1', compute_connected: false });
    expect(nodeUnreachable(n, m)).toBe('compute B not connected');
    expect(unreachableTitle(n, m)).toMatch(/^PC1: compute B not connected \(connection refused\)\. It cannot be started/);
    expect(nodeUnreachable({ ...n, compute_id: 'c9' }, m)).toBe('compute c9 not connected');
  });

  it('a connected node is not unreachable, whatever its compute says meanwhile', () => {
    expect(nodeUnreachable(vpcs('pc1', { compute_id: 'c1', compute_connected: true }), m)).toBeNull();
    expect(unreachableTitle(vpcs('pc1', { compute_id: 'c1' }), m)).toBeNull();
  });

  it('a link is unreachable only when the server says so', () => {
    expect(linkUnreachable({ ...link('l1', ['a', 0], ['b', 0]), compute_connected: false })).toBe(true);
    expect(linkUnreachable(link('l1', ['a', 0], ['b', 0]))).toBe(false);
  });

  it('names a compute by id, or the id while unknown', () => {
    expect(computeName(m, 'c1')).toBe('B');
    expect(computeName(m, 'x')).toBe('x');
  });
});

describe('the add and edit forms', () => {
  it('adds with the server defaults for what is left empty', () => {
    expect(createBody({ ...emptyForm(), host: ' 10.0.0.2 ', port: '3081' })).toEqual({ protocol: 'http', host: '10.0.0.2', port: 3081 });
    expect(createBody({ name: ' B ', protocol: 'https', host: 'h', port: '443', user: 'ann', password: 'pw' })).toEqual({
      name: 'B', protocol: 'https', host: 'h', port: 443, user: 'ann', password: 'pw',
    });
  });

  it('sends a port that is not a number as typed, for the server to refuse', () => {
    expect(createBody({ ...emptyForm(), host: 'h', port: 'abc' }).port).toBe('abc');
    expect(createBody({ ...emptyForm(), host: 'h', port: '' }).port).toBe('');
  });

  it('edits only what changed; an empty password leaves it, an empty user clears it', () => {
    const c = remote({ user: 'ann' });
    const f = formFromCompute(c);
    expect(f).toEqual({ name: 'B', protocol: 'http', host: '10.0.0.2', port: '3081', user: 'ann', password: '' });
    expect(updateBody(c, f)).toEqual({});
    expect(updateBody(c, { ...f, port: '3090', user: '', password: 'new' })).toEqual({ port: 3090, user: null, password: 'new' });
    expect(updateBody(c, { ...f, name: '' })).toEqual({ name: '' }); // the server says a name cannot be empty
  });

  it("puts a server error by the field it names, else above the form", () => {
    expect(formField('port')).toBe('port');
    expect(formField('name')).toBe('name');
    expect(formField('compute_id')).toBeNull();
    expect(formField(null)).toBeNull();
  });
});
