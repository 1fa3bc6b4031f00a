// "Check my lab" (decision 0070) as the page shows it: the add/edit form of
// a check and the Check it makes, the words for a check and its verdict,
// a run turned into rows, and lint findings and the wire map turned into
// what the canvas marks. No rule of the server is repeated here: the hints
// only say what a form lacks before it is sent; the server's 400 says the rest.

import type {
  Check, CheckFile, CheckKind, CheckResult, CheckRun, Evidence, LintFinding, LintReport, Link, Matrix, Node, SeenFrame,
  Verdict, WireEnd, WireFault, WireMap,
} from './types';

/** The kinds of check, with the words the form shows. */
export const CHECK_KINDS: readonly { kind: CheckKind; label: string; hint: string }[] = [
  { kind: 'reach', label: 'Reach', hint: 'One host pings another (or an address), and must get a reply, or must not.' },
  { kind: 'matrix', label: 'Every host reaches every host', hint: 'Each host pings each other one.' },
  { kind: 'console', label: 'Console', hint: 'A line sent on a console, and a pattern that must show within a time.' },
  { kind: 'wire', label: 'Frames on a wire', hint: 'Frames of a kind cross a port within a time, or never do.' },
];

/** The frame kinds a wire check names (app.FrameKind), with words; "vlan"
 * stands for vlan:N, with N in the form's vlan field. */
export const FRAME_CHOICES: readonly { value: string; label: string }[] = [
  { value: 'any', label: 'Any frame' },
  { value: 'arp', label: 'ARP' },
  { value: 'ipv4', label: 'IPv4' },
  { value: 'icmp', label: 'ICMP (ping)' },
  { value: 'ipv6', label: 'IPv6' },
  { value: 'ospf', label: 'OSPF hellos' },
  { value: 'stp', label: 'STP (spanning tree)' },
  { value: 'cdp', label: 'CDP' },
  { value: 'lldp', label: 'LLDP' },
  { value: 'dhcp', label: 'DHCP' },
  { value: 'lmi', label: 'Frame Relay LMI' },
  { value: 'tagged', label: '802.1Q tagged (any VLAN)' },
  { value: 'vlan', label: 'Tagged with one VLAN…' },
];

/** What the add/edit form holds: every kind's fields, so that switching
 * kind loses nothing typed. */
export interface CheckForm {
  id: string;
  description: string;
  kind: CheckKind;
  // reach
  from: string;
  to: string;
  reply: boolean;
  // matrix (none: every end host with a known address)
  hosts: string[];
  // console and wire: the node
  node: string;
  send: string;
  pattern: string;
  // wire
  port: string;
  frames: string;
  vlan: string;
  seen: boolean;
  within: string;
}

/** The fields of the form a hint can be about. */
export type FormField = 'id' | 'from' | 'to' | 'hosts' | 'node' | 'pattern' | 'port' | 'frames' | 'vlan' | 'within';

export const emptyForm = (kind: CheckKind = 'reach'): CheckForm => ({
  id: '', description: '', kind, from: '', to: '', reply: true, hosts: [], node: '', send: '', pattern: '',
  port: '', frames: 'icmp', vlan: '', seen: true, within: '',
});

/** checkToForm fills the form from a check, to edit it. */
export function checkToForm(c: Check): CheckForm {
  const f = emptyForm(c.kind);
  f.id = c.id;
  f.description = c.description ?? '';
  f.within = c.within ?? '';
  switch (c.kind) {
    case 'reach':
      f.from = c.from ?? '';
      f.to = c.to ?? '';
      f.reply = c.expect !== 'no_reply';
      break;
    case 'matrix':
      f.hosts = [...(c.hosts ?? [])];
      f.reply = c.expect !== 'no_reply';
      break;
    case 'console':
      f.node = c.node ?? '';
      f.send = c.send ?? '';
      f.pattern = c.expect ?? '';
      break;
    case 'wire': {
      f.node = c.at?.node ?? '';
      f.port = c.at?.port ?? '';
      const m = /^vlan:(\d+)$/.exec(c.frames ?? '');
      f.frames = m ? 'vlan' : c.frames || 'any';
      f.vlan = m ? m[1] : '';
      f.seen = c.expect !== 'never';
      break;
    }
  }
  return f;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
/** A Go duration, as time.ParseDuration reads it ("10s", "1m30s", "500ms"). */
const DURATION = /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/;

/** slug makes an id part from a name. */
const slug = (s: string) => s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'x';

/** suggestId names a new check from what it checks ("reach-pc1-pc2"),
 * unique among taken. */
export function suggestId(f: CheckForm, taken: ReadonlySet<string>): string {
  const parts: string[] = [f.kind];
  if (f.kind === 'reach') parts.push(slug(f.from), slug(f.to));
  if (f.kind === 'console' || f.kind === 'wire') parts.push(slug(f.node));
  if (f.kind === 'wire') parts.push(slug(f.frames === 'vlan' ? `vlan${f.vlan}` : f.frames));
  const base = parts.join('-');
  if (!taken.has(base)) return base;
  for (let i = 2; ; i++) if (!taken.has(`${base}-${i}`)) return `${base}-${i}`;
}

/** What formToCheck made: the check, or the hints saying what the form lacks. */
export type FormResult = { check: Check; hints: null } | { check: null; hints: Partial<Record<FormField, string>> };

/** formToCheck turns the form into the Check it says, with only the
 * fields of its kind; taken is the other checks' ids (an empty id takes
 * a suggested one). Hints name what is missing before anything is sent. */
export function formToCheck(f: CheckForm, taken: ReadonlySet<string>): FormResult {
  const hints: Partial<Record<FormField, string>> = {};
  const id = f.id.trim() || suggestId(f, taken);
  if (taken.has(id)) hints.id = `Another check is called ${id}; give this one another name`;
  const c: Check = { id, kind: f.kind };
  const description = f.description.trim();
  if (description) c.description = description;
  const within = f.within.trim();
  if ((f.kind === 'console' || f.kind === 'wire') && within) {
    if (!DURATION.test(within)) hints.within = 'A duration such as 10s, 500ms or 1m (empty: 10s)';
    c.within = within;
  }
  switch (f.kind) {
    case 'reach': {
      const to = f.to.trim();
      if (!f.from) hints.from = 'Pick the host that pings';
      if (!to) hints.to = 'Pick the host pinged, or type an IPv4 address';
      else if (/^[\d.]+$/.test(to) && !IPV4.test(to)) hints.to = `${to} is not an IPv4 address (such as 10.0.0.2)`;
      else if (to === f.from) hints.to = 'A host pinging itself checks nothing; pick another';
      c.from = f.from;
      c.to = to;
      c.expect = f.reply ? 'reply' : 'no_reply';
      break;
    }
    case 'matrix':
      if (f.hosts.length === 1) hints.hosts = 'Pick at least two hosts, or none for every host';
      if (f.hosts.length > 0) c.hosts = [...f.hosts];
      c.expect = f.reply ? 'reply' : 'no_reply';
      break;
    case 'console':
      if (!f.node) hints.node = 'Pick the node whose console is used';
      if (!f.pattern) hints.pattern = 'Type what must show, as a pattern (such as bytes from)';
      else {
        try {
          new RegExp(f.pattern);
        } catch {
          hints.pattern = 'This pattern is not a valid regular expression';
        }
      }
      c.node = f.node;
      if (f.send) c.send = f.send;
      c.expect = f.pattern;
      break;
    case 'wire': {
      if (!f.node) hints.node = 'Pick the node';
      else if (!f.port) hints.port = "Pick the node's port";
      let frames = f.frames || 'any';
      if (frames === 'vlan') {
        const n = Number(f.vlan);
        if (!/^\d+$/.test(f.vlan.trim()) || n < 1 || n > 4094) hints.vlan = 'A VLAN number, 1 to 4094';
        frames = `vlan:${f.vlan.trim()}`;
      }
      c.at = { node: f.node, port: f.port };
      c.frames = frames;
      c.expect = f.seen ? 'seen' : 'never';
      break;
    }
  }
  return Object.keys(hints).length > 0 ? { check: null, hints } : { check: c, hints: null };
}

/** withCheck is file with check added, or put in place of the check
 * called replacing (its place kept). */
export function withCheck(file: CheckFile, check: Check, replacing: string | null): CheckFile {
  const checks = [...file.checks];
  const at = replacing === null ? -1 : checks.findIndex((c) => c.id === replacing);
  if (at >= 0) checks[at] = check;
  else checks.push(check);
  return { version: file.version || 1, checks };
}

/** withoutCheck is file without the check called id. */
export const withoutCheck = (file: CheckFile, id: string): CheckFile => ({
  version: file.version || 1,
  checks: file.checks.filter((c) => c.id !== id),
});

const frameWords = (frames: string | undefined): string => {
  const m = /^vlan:(\d+)$/.exec(frames ?? '');
  if (m) return `frames tagged VLAN ${m[1]}`;
  const c = FRAME_CHOICES.find((x) => x.value === (frames || 'any'));
  return frames && frames !== 'any' ? `${c?.label ?? frames} frames` : 'frames';
};

/** describeCheck says what a check checks, in plain words. */
export function describeCheck(c: Check): string {
  const within = c.within || '10s';
  switch (c.kind) {
    case 'reach':
      return c.expect === 'no_reply' ? `${c.from} gets no reply from ${c.to}` : `${c.from} reaches ${c.to}`;
    case 'matrix': {
      const who = c.hosts && c.hosts.length > 0 ? c.hosts.join(', ') : 'every host';
      return c.expect === 'no_reply' ? `No two of ${who} reach each other` : `Each of ${who} reaches every other`;
    }
    case 'console':
      return `${c.node}: ${c.send ? `“${c.send}” shows` : 'shows'} /${c.expect ?? ''}/ within ${within}`;
    case 'wire':
      return c.expect === 'never'
        ? `No ${frameWords(c.frames)} cross ${c.at?.node} ${c.at?.port}`
        : `${frameWords(c.frames)[0].toUpperCase()}${frameWords(c.frames).slice(1)} cross ${c.at?.node} ${c.at?.port} within ${within}`;
  }
}

/** A row's verdict: a check's, or none when it has not run. */
export type RowVerdict = Verdict | 'none';

/** The words of each verdict: the colour is never alone. */
export const VERDICT_WORDS: Record<RowVerdict, string> = {
  pass: 'Pass',
  fail: 'Fail',
  error: 'Could not run',
  running: 'Running…',
  none: 'Not run',
};

/** One row of the checks list: a check of the file and its newest
 * verdict, or a result of a run with no check in the file (connectivity). */
export interface CheckRow {
  id: string;
  title: string;
  check: Check | null;
  verdict: RowVerdict;
  message: string;
  duration: string;
  result: CheckResult | null;
}

/** durationText says a duration in ms as a person reads it. */
export function durationText(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** checkRows is the checks of the file, each with its result in run (if
 * the run has one), then the run's results that no check of the file has. */
export function checkRows(file: CheckFile | null, run: CheckRun | null): CheckRow[] {
  const results = new Map((run?.results ?? []).map((r) => [r.check_id, r]));
  const row = (id: string, check: Check | null, r: CheckResult | null): CheckRow => ({
    id,
    title: r?.title || (check ? describeCheck(check) : id),
    check,
    verdict: r?.verdict ?? 'none',
    message: r?.message ?? (check?.description ?? ''),
    duration: r && r.verdict !== 'running' ? durationText(r.duration_ms) : '',
    result: r,
  });
  const rows = (file?.checks ?? []).map((c) => row(c.id, c, results.get(c.id) ?? null));
  const inFile = new Set(rows.map((r) => r.id));
  for (const r of run?.results ?? []) if (!inFile.has(r.check_id)) rows.push(row(r.check_id, null, r));
  return rows;
}

/** runSummary says how a run went, in one line. */
export function runSummary(run: CheckRun): string {
  const n = run.results.length;
  const done = run.passed + run.failed + run.errors;
  const parts = [`${run.passed} passed`, `${run.failed} failed`];
  if (run.errors > 0) parts.push(`${run.errors} could not run`);
  if (run.status === 'running') return `Running: ${done} of ${n} done (${parts.join(', ')})`;
  return `${run.failed === 0 && run.errors === 0 ? 'All passed' : 'Finished'}: ${parts.join(', ')}`;
}

/** portName names a port of a node as the user reads it. */
export function portName(nodes: ReadonlyMap<string, Node>, end: WireEnd): string {
  const n = nodes.get(end.node_id);
  const p = n?.ports.find((x) => x.adapter_number === end.adapter_number && x.port_number === end.port_number);
  return `${n?.name ?? 'a node'} ${p?.name ?? `${end.adapter_number}/${end.port_number}`}`;
}

/** frameTime shows a frame's time to the millisecond, in local time. */
export function frameTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** What a click on a piece of evidence selects on the canvas. */
export type Target = { node: string } | { link: string } | null;

/** One piece of evidence as the panel shows it. */
export type EvidenceView =
  | { kind: 'console'; node: string; lines: string[]; target: Target }
  | { kind: 'frames'; where: string; frames: { time: string; from: string; summary: string }[]; capture: string | null; target: Target }
  | { kind: 'sentence'; text: string; severity: 'error' | 'warning'; target: Target };

const targetOf = (nodeIds: readonly string[] | undefined, linkIds: readonly string[] | undefined, e?: Evidence): Target => {
  const link = e?.link_id ?? linkIds?.[0];
  const node = e?.node_id ?? nodeIds?.[0];
  if (link) return { link };
  if (node) return { node };
  return null;
};

/** linkWords names a link by its ends ("PC1 Ethernet0 ↔ SW1 Ethernet1"). */
export function linkWords(nodes: ReadonlyMap<string, Node>, links: readonly Link[], id: string | undefined): string {
  const l = id ? links.find((x) => x.link_id === id) : undefined;
  if (!l) return 'a link';
  return l.nodes.map((e) => portName(nodes, e)).join(' ↔ ');
}

/** evidenceView turns a result's evidence into what the panel shows. */
export function evidenceView(e: Evidence, nodes: ReadonlyMap<string, Node>, links: readonly Link[]): EvidenceView {
  switch (e.kind) {
    case 'console':
      return { kind: 'console', node: nodes.get(e.node_id ?? '')?.name ?? 'a console', lines: e.lines ?? [], target: targetOf(undefined, undefined, e) };
    case 'frames':
      return {
        kind: 'frames',
        where: e.link_id ? linkWords(nodes, links, e.link_id) : (nodes.get(e.node_id ?? '')?.name ?? 'the wire'),
        frames: (e.frames ?? []).map((f: SeenFrame) => ({ time: frameTime(f.time), from: portName(nodes, f.from), summary: f.summary })),
        capture: e.capture || null,
        target: targetOf(undefined, undefined, e),
      };
    case 'lint': {
      const f = e.finding;
      return { kind: 'sentence', text: f?.message ?? 'A lint finding', severity: f?.severity ?? 'warning', target: targetOf(f?.node_ids, f?.link_ids, e) };
    }
    case 'wire': {
      const f = e.fault;
      return { kind: 'sentence', text: f?.message ?? 'A fault on the wire', severity: 'error', target: targetOf(f?.node_ids, f?.link_ids, e) };
    }
  }
}

/** A badge on a node or a link: the worst severity of the findings that
 * name it, and their messages (its tooltip). */
export interface Badge {
  severity: 'error' | 'warning';
  messages: string[];
}

/** Which nodes and links lint (and the wire's faults) mark, by id. */
export interface Badges {
  nodes: ReadonlyMap<string, Badge>;
  links: ReadonlyMap<string, Badge>;
}

function mark(m: Map<string, Badge>, id: string, severity: Badge['severity'], message: string) {
  const b = m.get(id);
  if (!b) m.set(id, { severity, messages: [message] });
  else {
    if (severity === 'error') b.severity = 'error';
    if (!b.messages.includes(message)) b.messages.push(message);
  }
}

/** lintBadges gives every node and link a finding names its badge. */
export function lintBadges(report: LintReport | null): Badges {
  const nodes = new Map<string, Badge>();
  const links = new Map<string, Badge>();
  for (const f of report?.findings ?? []) {
    for (const id of f.node_ids ?? []) mark(nodes, id, f.severity, f.message);
    for (const id of f.link_ids ?? []) mark(links, id, f.severity, f.message);
  }
  return { nodes, links };
}

/** badgeTitle is a badge's tooltip: its messages, one a line. */
export const badgeTitle = (b: Badge): string => b.messages.join('\n');

/** sortFindings puts errors first, keeping the server's order otherwise. */
export const sortFindings = (fs: readonly LintFinding[]): LintFinding[] =>
  [...fs].sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'error' ? -1 : 1));

/** What the wire map shows on one link. */
export interface WireLabel {
  /** The IPv4 addresses seen there, each once. */
  addresses: string[];
  /** The tooltip: each MAC with its addresses and node, and the faults. */
  title: string;
  /** The faults naming the link (empty: none). */
  faults: string[];
}

/** wireLabels is what the wire map shows on each link it knows. */
export function wireLabels(map: WireMap | null, nodes: ReadonlyMap<string, Node>): ReadonlyMap<string, WireLabel> {
  const out = new Map<string, WireLabel>();
  if (!map) return out;
  const faults = new Map<string, string[]>();
  for (const f of map.faults ?? []) for (const id of f.link_ids ?? []) faults.set(id, [...(faults.get(id) ?? []), f.message]);
  for (const l of map.links ?? []) {
    const addresses = [...new Set(l.hosts.flatMap((h) => h.ipv4))];
    const lines = l.hosts.map((h) => {
      const who = h.node_id ? nodes.get(h.node_id)?.name : undefined;
      return `${h.mac}${h.ipv4.length ? ` → ${h.ipv4.join(', ')}` : ''}${who ? ` (${who})` : ''}`;
    });
    const fs = faults.get(l.link_id) ?? [];
    if (addresses.length === 0 && fs.length === 0) continue;
    out.set(l.link_id, { addresses, title: [...lines, ...fs.map((m) => `⚠ ${m}`)].join('\n'), faults: fs });
  }
  // A fault on a link the map lists no host for still shows.
  for (const [id, fs] of faults) {
    if (!out.has(id)) out.set(id, { addresses: [], title: fs.map((m) => `⚠ ${m}`).join('\n'), faults: fs });
  }
  return out;
}

/** wireFaultNodes is the faults that name nodes, by node id. */
export function wireFaultsByNode(faults: readonly WireFault[]): ReadonlyMap<string, string[]> {
  const m = new Map<string, string[]>();
  for (const f of faults) for (const id of f.node_ids ?? []) m.set(id, [...(m.get(id) ?? []), f.message]);
  return m;
}

/** One cell of a matrix as the panel shows it. */
export interface MatrixCell {
  verdict: '' | 'pass' | 'fail' | 'error' | 'running';
  why: string;
  title: string;
}

/** matrixGrid is a matrix's cells with the reasons of the failing ones. */
export function matrixGrid(m: Matrix): MatrixCell[][] {
  const why = new Map<string, string[]>();
  for (const w of m.why ?? []) why.set(`${w.from},${w.to}`, [...(why.get(`${w.from},${w.to}`) ?? []), w.reason]);
  return m.hosts.map((from, i) =>
    m.hosts.map((to, j) => {
      const v = (m.cells[i]?.[j] ?? '') as MatrixCell['verdict'];
      const reasons = why.get(`${i},${j}`) ?? [];
      const pair = `${from.name} (${from.address}) → ${to.name} (${to.address})`;
      const title = i === j ? '' : `${pair}: ${VERDICT_WORDS[v || 'none']}${reasons.length ? ` — ${reasons.join('; ')}` : ''}`;
      return { verdict: v, why: reasons.join('; '), title };
    }),
  );
}
