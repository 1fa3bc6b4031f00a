import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { useEnv } from '../api';
import type { CheckFile, CheckRun, LintReport, WireMap } from '../types';
import { vpcs, link } from '../testdata';
import {
  LINT_DELAY, WIRE_MAP_EVERY, badges, checkFile, checkRun, deleteCheck, followChecks, lintReport, putCheck, runChecks, checkConnectivity,
  showWireMap, wireMapLabels,
} from './checks';
import { setNodes } from './nodes';
import { applyTopologyEvent } from './topology';

const LOCATION = { protocol: 'http:', host: '127.0.0.1:3080' };
const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

type Route = (body: unknown) => Response;

/** routes answers each request by "METHOD /path" (no /v2/projects/p1
 * prefix) and records what was asked. */
function routes(table: Record<string, Route>) {
  const calls: { at: string; body: unknown }[] = [];
  const fetch = vi.fn(async (req: Request) => {
    const path = new URL(req.url).pathname.replace('/v2/projects/p1', '');
    const text = req.body === null ? '' : await req.text();
    const body = text ? JSON.parse(text) : undefined;
    const at = `${req.method} ${path}`;
    calls.push({ at, body });
    const r = table[at];
    if (!r) return json({ message: `no route ${at}`, status: 404, code: 'not_found' }, 404);
    return r(body);
  });
  useEnv({ fetch, location: LOCATION });
  return { calls, asked: (at: string) => calls.filter((c) => c.at === at) };
}

const run = (over: Partial<CheckRun> = {}): CheckRun => ({
  run_id: 'r1', project_id: 'p1', status: 'running', started_at: '2026-11-29T20:00:00Z', finished_at: null,
  passed: 0, failed: 0, errors: 0, results: [], ...over,
});
const file: CheckFile = { version: 1, checks: [{ id: 'a', kind: 'reach', from: 'PC1', to: 'PC2', expect: 'reply' }] };
const lint: LintReport = {
  findings: [
    { code: 'duplicate_address', severity: 'error', message: 'PC1 and PC2 both hold 10.0.0.1/24', node_ids: ['n1', 'n2'], link_ids: [] },
    { code: 'missing_port', severity: 'warning', message: 'The link names a port SW1 lacks', node_ids: [], link_ids: ['l1'] },
  ],
};
const noRun = () => json({ message: 'No check ran in this project yet', status: 404, code: 'not_found' }, 404);
/** Lets the requests under way answer. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe('the checks store', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    setNodes([vpcs('n1', { name: 'PC1' }), vpcs('n2', { name: 'PC2' })]);
  });
  afterEach(() => {
    showWireMap(false);
    followChecks(null);
    vi.useRealTimers();
  });

  it('on opening reads the checks, the newest run and lint; lint badges land on the nodes and links it names', async () => {
    const r = routes({ 'GET /checks': () => json(file), 'GET /checks/run': () => json(run({ status: 'finished' })), 'GET /lint': () => json(lint) });
    followChecks('p1');
    await settle();
    expect(get(checkFile)).toEqual(file);
    expect(get(checkRun)?.run_id).toBe('r1');
    expect(get(lintReport)).toEqual(lint);
    const b = get(badges);
    expect([...b.nodes.keys()]).toEqual(['n1', 'n2']);
    expect(b.nodes.get('n1')).toEqual({ severity: 'error', messages: ['PC1 and PC2 both hold 10.0.0.1/24'] });
    expect(b.links.get('l1')).toEqual({ severity: 'warning', messages: ['The link names a port SW1 lacks'] });
    expect(r.calls.map((c) => c.at).sort()).toEqual(['GET /checks', 'GET /checks/run', 'GET /lint']);
  });

  it('no run since nodedesk started (404) is no run, not an error', async () => {
    routes({ 'GET /checks': () => json({ version: 1, checks: [] }), 'GET /checks/run': noRun, 'GET /lint': () => json({ findings: [] }) });
    followChecks('p1');
    await settle();
    expect(get(checkRun)).toBeNull();
    expect(get(badges).nodes.size).toBe(0);
  });

  it('reads lint again once a burst of changes pauses, once', async () => {
    let answer: LintReport = { findings: [] };
    const r = routes({ 'GET /checks': () => json(file), 'GET /checks/run': noRun, 'GET /lint': () => json(answer) });
    followChecks('p1');
    await settle();
    answer = lint;
    applyTopologyEvent({ action: 'node.updated', event: vpcs('n1', { name: 'PC1', x: 5 }) });
    await vi.advanceTimersByTimeAsync(LINT_DELAY / 2);
    applyTopologyEvent({ action: 'link.created', event: link('l1', ['n1', 0], ['n2', 0]) });
    await vi.advanceTimersByTimeAsync(LINT_DELAY / 2);
    expect(r.asked('GET /lint')).toHaveLength(1); // not yet: the burst goes on
    await vi.advanceTimersByTimeAsync(LINT_DELAY);
    expect(r.asked('GET /lint')).toHaveLength(2);
    expect(get(badges).nodes.get('n2')?.severity).toBe('error');
  });

  it('follows check.run.updated for the project shown, and never lets an older run hide a newer one', async () => {
    routes({ 'GET /checks': () => json(file), 'GET /checks/run': noRun, 'GET /lint': () => json({ findings: [] }) });
    followChecks('p1');
    await settle();
    const verdict = { check_id: 'a', kind: 'reach', title: 'PC1 reaches PC2', verdict: 'pass' as const, message: '5 of 5', duration_ms: 900, evidence: [], matrix: null };
    applyTopologyEvent({ action: 'check.run.updated', event: run({ run_id: 'r2', started_at: '2026-11-29T20:05:00Z', status: 'finished', passed: 1, results: [verdict] }) });
    expect(get(checkRun)).toMatchObject({ run_id: 'r2', passed: 1 });
    applyTopologyEvent({ action: 'check.run.updated', event: run({ run_id: 'r1', started_at: '2026-11-29T20:00:00Z' }) });
    expect(get(checkRun)?.run_id).toBe('r2');
    applyTopologyEvent({ action: 'check.run.updated', event: run({ run_id: 'r9', project_id: 'other', started_at: '2026-11-29T21:00:00Z' }) });
    expect(get(checkRun)?.run_id).toBe('r2');
  });

  it('saves a check as the whole file by PUT; a refusal keeps the file and says why', async () => {
    const r = routes({
      'GET /checks': () => json(file),
      'GET /checks/run': noRun,
      'GET /lint': () => json({ findings: [] }),
      'PUT /checks': (body) => {
        const f = body as CheckFile;
        if (f.checks.some((c) => c.to === 'PC9')) return json({ message: 'check b: to: no node is called PC9', status: 400, code: 'invalid', field: 'checks.1.to' }, 400);
        return json(f);
      },
    });
    followChecks('p1');
    await settle();
    await putCheck('p1', { id: 'b', kind: 'reach', from: 'PC2', to: 'PC1', expect: 'no_reply' }, null);
    expect(r.asked('PUT /checks')[0].body).toEqual({ version: 1, checks: [file.checks[0], { id: 'b', kind: 'reach', from: 'PC2', to: 'PC1', expect: 'no_reply' }] });
    expect(get(checkFile)?.checks.map((c) => c.id)).toEqual(['a', 'b']);
    await expect(putCheck('p1', { id: 'b', kind: 'reach', from: 'PC2', to: 'PC9' }, 'b')).rejects.toThrow('check b: to: no node is called PC9');
    expect(get(checkFile)?.checks.map((c) => c.to)).toEqual(['PC2', 'PC1']);
    await deleteCheck('p1', 'a');
    expect(r.asked('PUT /checks')[2].body).toEqual({ version: 1, checks: [{ id: 'b', kind: 'reach', from: 'PC2', to: 'PC1', expect: 'no_reply' }] });
  });

  it('runs all, one check, or connectivity; a running run is read again until it ends', async () => {
    let last = run();
    const r = routes({
      'GET /checks': () => json(file), 'GET /lint': () => json({ findings: [] }),
      'GET /checks/run': () => json(last),
      'POST /checks/run': () => json(run(), 201),
    });
    followChecks('p1');
    await settle();
    await runChecks('p1');
    await runChecks('p1', ['a']);
    await checkConnectivity('p1');
    expect(r.asked('POST /checks/run').map((c) => c.body)).toEqual([{}, { checks: ['a'] }, { connectivity: true }]);
    const before = r.asked('GET /checks/run').length;
    last = run({ status: 'finished', failed: 1 });
    await vi.advanceTimersByTimeAsync(2500);
    expect(r.asked('GET /checks/run').length).toBe(before + 1);
    expect(get(checkRun)).toMatchObject({ status: 'finished', failed: 1 });
    await vi.advanceTimersByTimeAsync(10_000);
    expect(r.asked('GET /checks/run').length).toBe(before + 1); // finished: no more reads
  });

  it('a refused run rejects with the server message', async () => {
    routes({
      'GET /checks': () => json(file), 'GET /checks/run': noRun, 'GET /lint': () => json({ findings: [] }),
      'POST /checks/run': () => json({ message: 'A run is under way in this project; wait for it to end', status: 409, code: 'conflict' }, 409),
    });
    followChecks('p1');
    await settle();
    await expect(runChecks('p1')).rejects.toThrow('A run is under way');
  });

  it('reads the wire map every few seconds while shown, and puts its addresses on the links', async () => {
    const map: WireMap = {
      project_id: 'p1',
      links: [{ link_id: 'l1', since: '2026-11-29T20:00:00Z', kinds: {}, hosts: [{ mac: '00:50:79:66:68:00', ipv4: ['10.0.0.1'], node_id: 'n1' }] }],
      faults: [],
    };
    const r = routes({ 'GET /checks': () => json(file), 'GET /checks/run': noRun, 'GET /lint': () => json({ findings: [] }), 'GET /wiremap': () => json(map) });
    followChecks('p1');
    await settle();
    expect(r.asked('GET /wiremap')).toHaveLength(0); // not asked for
    showWireMap(true);
    await settle();
    expect(get(wireMapLabels).get('l1')).toMatchObject({ addresses: ['10.0.0.1'], title: '00:50:79:66:68:00 → 10.0.0.1 (PC1)' });
    await vi.advanceTimersByTimeAsync(WIRE_MAP_EVERY * 2);
    expect(r.asked('GET /wiremap')).toHaveLength(3);
    showWireMap(false);
    expect(get(wireMapLabels).size).toBe(0);
    await vi.advanceTimersByTimeAsync(WIRE_MAP_EVERY * 3);
    expect(r.asked('GET /wiremap')).toHaveLength(3);
  });
});
