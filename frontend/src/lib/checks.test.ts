import { describe, expect, it } from 'vitest';
import {
  checkRows, checkToForm, describeCheck, emptyForm, evidenceView, formToCheck, lintBadges, matrixGrid, runSummary, suggestId,
  wireLabels, withCheck, withoutCheck, type CheckForm,
} from './checks';
import { link, vpcs, ethSwitch } from './testdata';
import type { Check, CheckRun, Node } from './types';

const form = (over: Partial<CheckForm>): CheckForm => ({ ...emptyForm(over.kind), ...over });
const none = new Set<string>();

describe('the add-check form makes the Check it says', () => {
  it('a reach check from two picked nodes, with only its fields', () => {
    const r = formToCheck(form({ kind: 'reach', from: 'PC1', to: 'PC2', node: 'left over', pattern: 'x' }), none);
    expect(r).toEqual({ check: { id: 'reach-pc1-pc2', kind: 'reach', from: 'PC1', to: 'PC2', expect: 'reply' }, hints: null });
  });

  it('no reply expected, to an address typed', () => {
    const r = formToCheck(form({ kind: 'reach', from: 'PC1', to: ' 10.0.0.99 ', reply: false, id: 'isolated' }), none);
    expect(r.check).toEqual({ id: 'isolated', kind: 'reach', from: 'PC1', to: '10.0.0.99', expect: 'no_reply' });
  });

  it('says what a reach form lacks, field by field', () => {
    expect(formToCheck(form({ kind: 'reach' }), none).hints).toEqual({ from: 'Pick the host that pings', to: 'Pick the host pinged, or type an IPv4 address' });
    expect(formToCheck(form({ kind: 'reach', from: 'PC1', to: '10.0.0.300' }), none).hints).toEqual({ to: '10.0.0.300 is not an IPv4 address (such as 10.0.0.2)' });
    expect(formToCheck(form({ kind: 'reach', from: 'PC1', to: 'PC1' }), none).hints?.to).toMatch(/itself/);
  });

  it('a matrix: the hosts ticked, or none for every host; one alone is not a matrix', () => {
    expect(formToCheck(form({ kind: 'matrix', id: 'm' }), none).check).toEqual({ id: 'm', kind: 'matrix', expect: 'reply' });
    expect(formToCheck(form({ kind: 'matrix', id: 'm', hosts: ['PC1', 'PC2'] }), none).check).toEqual({ id: 'm', kind: 'matrix', hosts: ['PC1', 'PC2'], expect: 'reply' });
    expect(formToCheck(form({ kind: 'matrix', hosts: ['PC1'] }), none).hints).toEqual({ hosts: 'Pick at least two hosts, or none for every host' });
  });

  it('a console check: node, line, pattern and time; a bad pattern or duration is named', () => {
    const ok = formToCheck(form({ kind: 'console', node: 'R1', send: 'show ip int brief', pattern: 'up\\s+up', within: '30s' }), none);
    expect(ok.check).toEqual({ id: 'console-r1', kind: 'console', node: 'R1', send: 'show ip int brief', expect: 'up\\s+up', within: '30s' });
    const bad = formToCheck(form({ kind: 'console', node: 'R1', pattern: '(', within: '30 seconds' }), none);
    expect(bad.hints).toEqual({ pattern: 'This pattern is not a valid regular expression', within: 'A duration such as 10s, 500ms or 1m (empty: 10s)' });
  });

  it('a wire check on a picked port, a VLAN as vlan:N, never seen', () => {
    const r = formToCheck(form({ kind: 'wire', node: 'SW1', port: 'Ethernet2', frames: 'vlan', vlan: '20', seen: false }), none);
    expect(r.check).toEqual({ id: 'wire-sw1-vlan20', kind: 'wire', at: { node: 'SW1', port: 'Ethernet2' }, frames: 'vlan:20', expect: 'never' });
    expect(formToCheck(form({ kind: 'wire', node: 'SW1', port: 'e0', frames: 'vlan', vlan: '5000' }), none).hints).toEqual({ vlan: 'A VLAN number, 1 to 4094' });
    expect(formToCheck(form({ kind: 'wire', node: 'SW1' }), none).hints).toEqual({ port: "Pick the node's port" });
  });

  it('an id taken by another check is refused; a suggested one steps aside', () => {
    expect(formToCheck(form({ kind: 'reach', from: 'PC1', to: 'PC2', id: 'a' }), new Set(['a'])).hints).toEqual({ id: 'Another check is called a; give this one another name' });
    expect(suggestId(form({ kind: 'reach', from: 'PC 1', to: 'PC2' }), new Set(['reach-pc-1-pc2', 'reach-pc-1-pc2-2']))).toBe('reach-pc-1-pc2-3');
  });

  it('editing fills the form back from each kind of check, and saves the same check', () => {
    const checks: Check[] = [
      { id: 'r', kind: 'reach', from: 'PC1', to: '10.0.0.2', expect: 'no_reply', description: 'isolated' },
      { id: 'm', kind: 'matrix', hosts: ['PC1', 'PC2'], expect: 'reply' },
      { id: 'c', kind: 'console', node: 'R1', send: 'show ver', expect: 'IOS', within: '20s' },
      { id: 'w', kind: 'wire', at: { node: 'SW1', port: 'Ethernet0' }, frames: 'vlan:10', expect: 'seen', within: '5s' },
    ];
    for (const c of checks) expect(formToCheck(checkToForm(c), none).check).toEqual(c);
  });
});

describe('the checks file changes', () => {
  const a: Check = { id: 'a', kind: 'reach', from: 'PC1', to: 'PC2' };
  const b: Check = { id: 'b', kind: 'matrix' };
  it('adds at the end, replaces in place (even renamed), removes', () => {
    const f = withCheck({ version: 1, checks: [a] }, b, null);
    expect(f.checks.map((c) => c.id)).toEqual(['a', 'b']);
    expect(withCheck(f, { ...a, id: 'a2' }, 'a').checks.map((c) => c.id)).toEqual(['a2', 'b']);
    expect(withoutCheck(f, 'a')).toEqual({ version: 1, checks: [b] });
  });
});

const run = (over: Partial<CheckRun> = {}): CheckRun => ({
  run_id: 'r1', project_id: 'p1', status: 'finished', started_at: '2026-11-29T20:00:00Z', finished_at: '2026-11-29T20:00:02Z',
  passed: 1, failed: 1, errors: 0, results: [], ...over,
});

describe('a run as the panel lists it', () => {
  const file = {
    version: 1,
    checks: [
      { id: 'ok', kind: 'reach', from: 'PC1', to: 'PC2' },
      { id: 'bad', kind: 'reach', from: 'PC1', to: '10.0.0.99', expect: 'no_reply' },
      { id: 'new', kind: 'wire', at: { node: 'SW1', port: 'Ethernet0' }, frames: 'icmp' },
    ] as Check[],
  };

  it('each check with its verdict, words and duration; one not run says so; a run-only result follows', () => {
    const rows = checkRows(file, run({
      results: [
        { check_id: 'ok', kind: 'reach', title: 'PC1 reaches PC2', verdict: 'pass', message: '5 of 5 replies', duration_ms: 1250, evidence: [], matrix: null },
        { check_id: 'bad', kind: 'reach', title: 'PC1 gets no reply from 10.0.0.99', verdict: 'fail', message: '10.0.0.99 answered', duration_ms: 80, evidence: [], matrix: null },
        { check_id: 'connectivity', kind: 'matrix', title: 'Every host reaches every other', verdict: 'running', message: '', duration_ms: 0, evidence: [], matrix: null },
      ],
    }));
    expect(rows.map((r) => [r.id, r.verdict, r.title, r.duration, r.message])).toEqual([
      ['ok', 'pass', 'PC1 reaches PC2', '1.3 s', '5 of 5 replies'],
      ['bad', 'fail', 'PC1 gets no reply from 10.0.0.99', '80 ms', '10.0.0.99 answered'],
      ['new', 'none', 'ICMP (ping) frames cross SW1 Ethernet0 within 10s', '', ''],
      ['connectivity', 'running', 'Every host reaches every other', '', ''],
    ]);
    expect(rows[3].check).toBeNull();
  });

  it('no file and no run: no rows', () => {
    expect(checkRows(null, null)).toEqual([]);
  });

  it('says how the run went', () => {
    expect(runSummary(run())).toBe('Finished: 1 passed, 1 failed');
    expect(runSummary(run({ failed: 0 }))).toBe('All passed: 1 passed, 0 failed');
    expect(runSummary(run({ status: 'running', passed: 1, failed: 0, errors: 1, results: [{}, {}, {}] as never }))).toBe('Running: 2 of 3 done (1 passed, 0 failed, 1 could not run)');
  });

  it('describes checks in plain words', () => {
    expect(describeCheck({ id: 'x', kind: 'matrix' })).toBe('Each of every host reaches every other');
    expect(describeCheck({ id: 'x', kind: 'console', node: 'R1', send: 'show ip route', expect: 'O ' })).toBe('R1: “show ip route” shows /O / within 10s');
    expect(describeCheck({ id: 'x', kind: 'wire', at: { node: 'SW1', port: 'e1' }, frames: 'stp', expect: 'never' })).toBe('No STP (spanning tree) frames cross SW1 e1');
  });
});

describe('evidence as the panel shows it', () => {
  const pc1 = vpcs('n1', { name: 'PC1' });
  const sw = ethSwitch('n2', { name: 'SW1' });
  const nodes = new Map<string, Node>([[pc1.node_id, pc1], [sw.node_id, sw]]);
  const links = [link('l1', ['n1', 0], ['n2', 3])];

  it('frames: where, each frame with its time, its end by name and its summary, and the capture', () => {
    const v = evidenceView({
      kind: 'frames', link_id: 'l1', capture: 'project-files/captures/check-ok.pcap',
      frames: [{ time: new Date(2026, 10, 29, 21, 4, 5, 67).toISOString(), from: { node_id: 'n1', adapter_number: 0, port_number: 0 }, kind: 'icmp', summary: 'ICMP echo request 10.0.0.1 > 10.0.0.2' }],
    }, nodes, links);
    expect(v).toEqual({
      kind: 'frames', where: 'PC1 Ethernet0 ↔ SW1 Ethernet3', capture: 'project-files/captures/check-ok.pcap', target: { link: 'l1' },
      frames: [{ time: '21:04:05.067', from: 'PC1 Ethernet0', summary: 'ICMP echo request 10.0.0.1 > 10.0.0.2' }],
    });
  });

  it('a lint finding is a sentence whose click selects what it names', () => {
    const v = evidenceView({ kind: 'lint', finding: { code: 'duplicate_address', severity: 'error', message: 'PC1 and PC2 both hold 10.0.0.1', node_ids: ['n1', 'n3'], link_ids: [] } }, nodes, links);
    expect(v).toEqual({ kind: 'sentence', text: 'PC1 and PC2 both hold 10.0.0.1', severity: 'error', target: { node: 'n1' } });
    const w = evidenceView({ kind: 'wire', fault: { code: 'gateway_silent', message: 'PC1 asks for 10.0.0.254', link_ids: ['l1'], node_ids: ['n1'] } }, nodes, links);
    expect(w).toMatchObject({ kind: 'sentence', target: { link: 'l1' } });
    expect(evidenceView({ kind: 'console', node_id: 'n1', lines: ['84 bytes from 10.0.0.2'] }, nodes, links)).toEqual({ kind: 'console', node: 'PC1', lines: ['84 bytes from 10.0.0.2'], target: { node: 'n1' } });
  });
});

describe('badges and labels on the canvas', () => {
  it('lint marks each node and link a finding names, an error over a warning, every message in its tooltip', () => {
    const b = lintBadges({
      findings: [
        { code: 'subnet_mismatch', severity: 'warning', message: 'PC1 and PC2 share a segment in different subnets', node_ids: ['n1', 'n2'], link_ids: [] },
        { code: 'duplicate_address', severity: 'error', message: 'PC1 and PC3 both hold 10.0.0.1', node_ids: ['n1', 'n3'], link_ids: [] },
        { code: 'missing_port', severity: 'error', message: 'The link to SW1 port 9: SW1 has 8 ports', node_ids: [], link_ids: ['l1'] },
      ],
    });
    expect(b.nodes.get('n1')).toEqual({ severity: 'error', messages: ['PC1 and PC2 share a segment in different subnets', 'PC1 and PC3 both hold 10.0.0.1'] });
    expect(b.nodes.get('n2')?.severity).toBe('warning');
    expect(b.links.get('l1')?.severity).toBe('error');
    expect(b.nodes.has('l1')).toBe(false);
  });

  it('the wire map puts the addresses seen on each link, MACs in the tooltip, and marks the faulty ones', () => {
    const pc1 = vpcs('n1', { name: 'PC1' });
    const labels = wireLabels({
      project_id: 'p1',
      links: [
        { link_id: 'l1', since: '2026-11-29T20:00:00Z', kinds: {}, hosts: [
          { mac: '00:50:79:66:68:00', ipv4: ['10.0.0.1'], node_id: 'n1' },
          { mac: '00:50:79:66:68:01', ipv4: ['10.0.0.2', '10.0.0.1'] },
        ] },
        { link_id: 'l2', since: null, kinds: {}, hosts: [] },
      ],
      faults: [{ code: 'duplicate_ip', message: 'Two MACs claim 10.0.0.1', link_ids: ['l1', 'l3'], node_ids: [], address: '10.0.0.1' }],
    }, new Map([[pc1.node_id, pc1]]));
    expect(labels.get('l1')).toEqual({
      addresses: ['10.0.0.1', '10.0.0.2'],
      faults: ['Two MACs claim 10.0.0.1'],
      title: '00:50:79:66:68:00 → 10.0.0.1 (PC1)\n00:50:79:66:68:01 → 10.0.0.2, 10.0.0.1\n⚠ Two MACs claim 10.0.0.1',
    });
    expect(labels.has('l2')).toBe(false); // nothing seen: no label
    expect(labels.get('l3')).toEqual({ addresses: [], faults: ['Two MACs claim 10.0.0.1'], title: '⚠ Two MACs claim 10.0.0.1' });
    expect(wireLabels(null, new Map()).size).toBe(0);
  });

  it("a matrix's cells, a failing one explained by its reasons", () => {
    const g = matrixGrid({
      hosts: [{ node_id: 'a', name: 'PC1', address: '10.0.0.1' }, { node_id: 'b', name: 'PC2', address: '10.0.0.2' }],
      cells: [['', 'pass'], ['fail', '']],
      why: [{ from: 1, to: 0, reason: 'PC2 is in 10.0.1.0/24, PC1 in 10.0.0.0/24' }],
    });
    expect(g[0][1]).toEqual({ verdict: 'pass', why: '', title: 'PC1 (10.0.0.1) → PC2 (10.0.0.2): Pass' });
    expect(g[1][0]).toEqual({ verdict: 'fail', why: 'PC2 is in 10.0.1.0/24, PC1 in 10.0.0.0/24', title: 'PC2 (10.0.0.2) → PC1 (10.0.0.1): Fail — PC2 is in 10.0.1.0/24, PC1 in 10.0.0.0/24' });
    expect(g[0][0].title).toBe('');
  });
});
