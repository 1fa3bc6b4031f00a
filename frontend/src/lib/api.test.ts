import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as api from './api';
import { AppError, backoff, toAppError, useEnv, type Env } from './api';
import type { Bindings } from './transport';
import type { LiveEvent } from './types';
import { compute, link, project, vpcs } from './testdata';
import { listDockerImages } from '../nodekinds/docker';
import { qemuCapabilities } from '../nodekinds/qemu';

type FetchCall = { url: string; method: string; body: unknown; contentType: string | null };

const LOCATION = { protocol: 'http:', host: '127.0.0.1:3080' };

/** fakeFetch answers each request with the next reply and records it. */
function fakeFetch(...replies: (Response | Error)[]) {
  const calls: FetchCall[] = [];
  const f = vi.fn(async (req: Request) => {
    const u = new URL(req.url);
    const text = req.body === null ? '' : await req.text();
    calls.push({ url: u.pathname + u.search, method: req.method, body: text ? JSON.parse(text) : undefined, contentType: req.headers.get('content-type') });
    const r = replies.shift();
    if (!r) throw new Error('no reply left');
    if (r instanceof Error) throw r;
    return r;
  });
  return { fetch: f, calls };
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('api over REST (browser)', () => {
  it('uses REST when the page has no Go bindings', () => {
    useEnv({ fetch: fakeFetch().fetch, location: LOCATION });
    expect(api.transport()).toBe('rest');
  });

  it('sends each call to the matching /v2 route with a JSON body', async () => {
    const p = project('p1');
    const n = vpcs('n1');
    const { fetch, calls } = fakeFetch(json([p]), json(n, 201), json(n), new Response(null, { status: 204 }), json(n), new Response(null, { status: 204 }), json(n, 201));
    useEnv({ fetch, location: LOCATION });
    expect(await api.listProjects()).toEqual([p]);
    expect(await api.createNodeFromTemplate('p1', 't/1', { x: 10, y: 20 })).toEqual(n);
    await api.updateNode('p1', 'n1', { name: 'PC7' });
    expect(await api.deleteNode('p1', 'n1')).toBeUndefined();
    await api.nodeAction('p1', 'n1', 'start');
    await api.projectAction('p1', 'stop');
    await api.duplicateNode('p1', 'n1', { x: 1, y: 2 });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /v2/projects',
      'POST /v2/projects/p1/templates/t%2F1',
      'PUT /v2/projects/p1/nodes/n1',
      'DELETE /v2/projects/p1/nodes/n1',
      'POST /v2/projects/p1/nodes/n1/start',
      'POST /v2/projects/p1/nodes/stop',
      'POST /v2/projects/p1/nodes/n1/duplicate',
    ]);
    expect(calls[1].body).toEqual({ x: 10, y: 20 });
    expect(calls[2].body).toEqual({ name: 'PC7' });
    expect(calls[2].contentType).toBe('application/json');
    expect(calls[0].body).toBeUndefined();
  });

  it('adds, changes and removes computes on /v2/computes, the server\'s 409 by its field', async () => {
    const c = compute('c1', { name: 'B' });
    const { fetch, calls } = fakeFetch(
      json([compute()]), json(c, 201), json({ message: 'A compute named B exists already', status: 409, code: 'conflict', field: 'name' }, 409),
      json(c), new Response(null, { status: 204 }),
    );
    useEnv({ fetch, location: LOCATION });
    expect(await api.listComputes()).toEqual([compute()]);
    expect(await api.createCompute({ protocol: 'http', host: '127.0.0.1', port: 3081 })).toEqual(c);
    await expect(api.createCompute({ name: 'B', protocol: 'http', host: 'h', port: 1 })).rejects.toMatchObject({ status: 409, code: 'conflict', field: 'name' });
    await api.updateCompute('c 1', { port: 3082 });
    expect(await api.deleteCompute('c1')).toBeUndefined();
    expect(calls.map((x) => `${x.method} ${x.url}`)).toEqual([
      'GET /v2/computes', 'POST /v2/computes', 'POST /v2/computes', 'PUT /v2/computes/c%201', 'DELETE /v2/computes/c1',
    ]);
    expect(calls[1].body).toEqual({ protocol: 'http', host: '127.0.0.1', port: 3081 });
    expect(calls[3].body).toEqual({ port: 3082 });
  });

  it('turns an error answer into an AppError with the server\'s message, status, code and field', async () => {
    const { fetch } = fakeFetch(json({ message: 'Console port 80 cannot be used', status: 400, code: 'invalid', field: 'console' }, 400));
    useEnv({ fetch, location: LOCATION });
    const err = await api.updateNode('p', 'n', { console: 80 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ message: 'Console port 80 cannot be used', status: 400, code: 'invalid', field: 'console' });
  });

  it('takes the code from the body, not from the status', async () => {
    const { fetch } = fakeFetch(json({ message: 'Node ID x doesn\'t exist', status: 404, code: 'not_found' }, 404), json({ message: 'Forbidden origin', status: 403, code: 'forbidden' }, 403));
    useEnv({ fetch, location: LOCATION });
    await expect(api.getNode('p', 'x')).rejects.toMatchObject({ status: 404, code: 'not_found', field: null });
    await expect(api.listProjects()).rejects.toMatchObject({ status: 403, code: 'forbidden' });
  });

  it('explains a non-JSON error and an unreachable server in plain words, the technical detail apart', async () => {
    const { fetch } = fakeFetch(new Response('oops', { status: 502, statusText: 'Bad Gateway' }), new TypeError('Failed to fetch'));
    useEnv({ fetch, location: LOCATION });
    await expect(api.listProjects()).rejects.toMatchObject({ status: 502, code: 'internal', message: expect.stringMatching(/did not expect.*Try again/), detail: 'HTTP 502 Bad Gateway: oops' });
    await expect(api.listProjects()).rejects.toMatchObject({ status: 0, code: 'unreachable', message: 'Cannot reach nodedesk. Check that it is still running, then try again.', detail: 'Failed to fetch' });
  });

  it('sends link filter, capture and suspend calls to their routes', async () => {
    const l = link('l1', ['a', 0], ['b', 0]);
    const capturing = { ...l, capturing: true, capture_file_name: 'a_to_b.pcap', capture_file_path: '/p/captures/a_to_b.pcap' };
    const { fetch, calls } = fakeFetch(json([]), json(capturing, 201), json(l, 201), json({ ...l, suspend: true }));
    useEnv({ fetch, location: LOCATION });
    await api.listLinkFilters('p1', 'l1');
    await api.startCapture('p1', 'l1', { data_link_type: 'DLT_EN10MB' });
    await api.stopCapture('p1', 'l1');
    await api.updateLink('p1', 'l1', { suspend: true, filters: { packet_loss: [30] } });
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /v2/projects/p1/links/l1/available_filters',
      'POST /v2/projects/p1/links/l1/start_capture',
      'POST /v2/projects/p1/links/l1/stop_capture',
      'PUT /v2/projects/p1/links/l1',
    ]);
    expect(calls[1].body).toEqual({ data_link_type: 'DLT_EN10MB' });
    expect(calls[3].body).toEqual({ suspend: true, filters: { packet_loss: [30] } });
  });

  it('gives the capture file and its pcap stream in a browser', async () => {
    const l = link('l 1', ['a', 0], ['b', 0]);
    const capturing = { ...l, capturing: true, capture_file_name: 'a_to_b.pcap', capture_file_path: '/p/captures/a_to_b.pcap' };
    const { fetch } = fakeFetch(json(capturing), json(l));
    useEnv({ fetch, location: LOCATION });
    expect(await api.openCapture('p1', 'l 1')).toEqual({
      kind: 'file', fileName: 'a_to_b.pcap', path: '/p/captures/a_to_b.pcap', url: 'http://127.0.0.1:3080/v2/projects/p1/links/l%201/pcap',
    });
    await expect(api.openCapture('p1', 'l 1')).rejects.toMatchObject({ code: 'conflict', message: expect.stringMatching(/not capturing; start a capture/) });
  });

  it('gives the telnet command of a console in a browser', async () => {
    const { fetch, calls } = fakeFetch(json(vpcs('n1', { console: 5004, console_host: '0.0.0.0' })), json(vpcs('n2', { console: null, console_type: null })));
    useEnv({ fetch, location: LOCATION });
    expect(await api.openConsole('p', 'n1')).toEqual({ kind: 'command', command: 'telnet 127.0.0.1 5004', host: '127.0.0.1', port: 5004 });
    expect(calls[0].url).toBe('/v2/projects/p/nodes/n1');
    await expect(api.openConsole('p', 'n2')).rejects.toMatchObject({ code: 'invalid', message: expect.stringMatching(/has no console/) });
  });
});

/** FakeSocket records the sockets the API opens. */
class FakeSocket {
  static all: FakeSocket[] = [];
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: unknown) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  closed = false;
  constructor(public url: string) {
    FakeSocket.all.push(this);
  }
  close() {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.({});
  }
  send(action: string, event: unknown = {}) {
    this.onmessage?.({ data: JSON.stringify({ action, event }) });
  }
}

describe('live events over websockets (browser)', () => {
  beforeEach(() => {
    FakeSocket.all = [];
    vi.useFakeTimers();
    useEnv({ WebSocket: FakeSocket, location: LOCATION });
  });
  afterEach(() => vi.useRealTimers());

  it('follows a project on its websocket, passing node and link events and skipping pings', () => {
    const got: LiveEvent[] = [];
    const states: string[] = [];
    const stop = api.subscribe('p1', (e) => got.push(e), (s) => states.push(s));
    const ws = FakeSocket.all[0];
    expect(ws.url).toBe('ws://127.0.0.1:3080/v2/projects/p1/notifications/ws');
    ws.onopen?.({});
    ws.send('ping', { cpu_usage_percent: 1 });
    ws.send('node.updated', { node_id: 'n1', name: 'PC9' });
    ws.send('link.deleted', { link_id: 'l1' });
    ws.onmessage?.({ data: 'not json' });
    expect(got.map((e) => e.action)).toEqual(['node.updated', 'link.deleted']);
    expect(states).toEqual(['live']);
    stop();
    expect(ws.closed).toBe(true);
  });

  it('follows project and compute events on the controller websocket', () => {
    const got: LiveEvent[] = [];
    api.subscribe(null, (e) => got.push(e));
    const ws = FakeSocket.all[0];
    expect(ws.url).toBe('ws://127.0.0.1:3080/v2/notifications/ws?viewer=true'); // a viewer (decision 0069)
    ws.send('ping', { cpu_usage_percent: 1 });
    ws.send('compute.updated', { compute_id: 'c1', connected: false });
    ws.send('project.updated', { project_id: 'p1', name: 'x' });
    ws.send('node.updated', { node_id: 'n1' });
    expect(got).toEqual([
      { action: 'compute.updated', event: { compute_id: 'c1', connected: false } },
      { action: 'project.updated', event: { project_id: 'p1', name: 'x' } },
    ]);
  });

  it('reconnects with backoff and asks for a resync after a drop', () => {
    const got: LiveEvent[] = [];
    const states: string[] = [];
    const stop = api.subscribe('p1', (e) => got.push(e), (s) => states.push(s));
    FakeSocket.all[0].onopen?.({});
    FakeSocket.all[0].close(); // the server went away
    expect(states).toEqual(['live', 'reconnecting']);
    vi.advanceTimersByTime(backoff(0) - 1);
    expect(FakeSocket.all).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeSocket.all).toHaveLength(2);
    FakeSocket.all[1].close(); // still away: waits longer
    vi.advanceTimersByTime(backoff(1));
    expect(FakeSocket.all).toHaveLength(3);
    FakeSocket.all[2].onopen?.({});
    expect(got).toEqual([{ action: 'resync' }]);
    expect(states.at(-1)).toBe('live');
    stop();
    vi.advanceTimersByTime(60_000);
    expect(FakeSocket.all).toHaveLength(3); // stopped for good
  });

  it('backs off up to 5 s', () => {
    expect([0, 1, 2, 3, 10].map(backoff)).toEqual([250, 500, 1000, 2000, 5000]);
  });
});

type Answer = { status: number; body: string };
type Route = (body: string) => Answer | Promise<Answer>;

/** fakeWindow is window.go.desktop.App and window.runtime as Wails makes
 * them: Call answers from `routes` ("METHOD /path" → answer) as the Go side
 * does, status and body unchanged. */
function fakeWindow(routes: Record<string, Route> = {}, over: Partial<Bindings> = {}) {
  const listeners: ((msg: unknown) => void)[] = [];
  const call = vi.fn(async (method: string, path: string, body: string) => {
    const route = routes[`${method} ${path}`];
    return route ? route(body) : { status: 404, body: JSON.stringify({ message: `no route ${method} ${path}`, status: 404, code: 'not_found' }) };
  });
  const App = {
    Ready: vi.fn(async () => 'ready'),
    Call: call,
    OpenConsole: vi.fn(async () => undefined),
    ...over,
  };
  const off = vi.fn();
  const runtime = {
    EventsOn: vi.fn((name: string, cb: (msg: unknown) => void) => {
      expect(name).toBe('notification');
      listeners.push(cb);
      return off;
    }),
  };
  const fetch = vi.fn(async () => {
    throw new Error('REST must not be used in the window');
  });
  const env: Env = { go: { desktop: { App } }, runtime, fetch, location: LOCATION };
  return { env, App, call, emit: (m: unknown) => listeners.forEach((l) => l(m)), off, fetch };
}

const ok = (v: unknown, status = 200): Route => () => ({ status, body: v === undefined ? '' : JSON.stringify(v) });

describe('api in the Wails window', () => {
  it('sends every call through the one Call binding and never calls fetch', async () => {
    const w = fakeWindow({
      'GET /v2/projects': ok([project('p1')]),
      'POST /v2/projects/p1/templates/t1': ok(vpcs('n1'), 201),
      'PUT /v2/projects/p1/nodes/n1': ok(vpcs('n1')),
      'DELETE /v2/projects/p1/nodes/n1': ok(undefined, 204),
      'POST /v2/projects/p1/nodes/n1/start': ok(vpcs('n1', { status: 'started' })),
      'POST /v2/projects/p1/nodes/suspend': ok(undefined, 204),
    });
    useEnv(w.env);
    expect(api.transport()).toBe('window');
    expect(await api.ready()).toBe('ready');
    expect(await api.listProjects()).toEqual([project('p1')]);
    await api.createNodeFromTemplate('p1', 't1', { x: 5, y: 6 });
    await api.updateNode('p1', 'n1', { properties: { startup_script: 'ip dhcp' } });
    expect(await api.deleteNode('p1', 'n1')).toBeUndefined();
    expect((await api.nodeAction('p1', 'n1', 'start')).status).toBe('started');
    await api.projectAction('p1', 'suspend');
    expect(w.call.mock.calls).toEqual([
      ['GET', '/v2/projects', ''],
      ['POST', '/v2/projects/p1/templates/t1', '{"x":5,"y":6}'],
      ['PUT', '/v2/projects/p1/nodes/n1', '{"properties":{"startup_script":"ip dhcp"}}'],
      ['DELETE', '/v2/projects/p1/nodes/n1', ''],
      ['POST', '/v2/projects/p1/nodes/n1/start', '{}'],
      ['POST', '/v2/projects/p1/nodes/suspend', '{}'],
    ]);
    expect(w.fetch).not.toHaveBeenCalled();
  });

  it('reads an error answer of Call as over HTTP: code and field from the body', async () => {
    const body = { message: 'Another node of this project is already named PC2; choose another name', status: 409, code: 'conflict', field: 'name' };
    const w = fakeWindow({ 'PUT /v2/projects/p1/nodes/n1': ok(body, 409) });
    useEnv(w.env);
    const err = await api.updateNode('p1', 'n1', { name: 'PC2' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 409, code: 'conflict', field: 'name', message: expect.stringMatching(/already named PC2/) });
  });

  it('reads the binding\'s own error as Wails 2.16 rejects with it: an Error whose message is the JSON', async () => {
    const text = JSON.stringify({ message: 'The window calls only the API, whose paths start with /v2/; "/x" is not one', code: 'invalid' });
    const w = fakeWindow({
      'GET /v2/projects': () => {
        throw new Error(text);
      },
    });
    useEnv(w.env);
    await expect(api.listProjects()).rejects.toMatchObject({ status: 0, code: 'invalid', message: expect.stringMatching(/only the API/) });
    expect(toAppError(text)).toMatchObject({ status: 0, code: 'invalid', field: null });
  });

  it('gives the console command when the window cannot start a terminal', async () => {
    const w = fakeWindow(
      { 'GET /v2/projects/p1/nodes/n1': ok(vpcs('n1', { console: 5007 })) },
      {
        OpenConsole: async () => {
          throw new Error('{"message":"No terminal could be opened","code":"conflict"}');
        },
      },
    );
    useEnv(w.env);
    expect(await api.openConsole('p1', 'n1')).toEqual({
      kind: 'command', command: 'telnet 127.0.0.1 5007', host: '127.0.0.1', port: 5007, reason: 'No terminal could be opened',
    });
  });

  it('reports a missing binding instead of failing obscurely', async () => {
    const w = fakeWindow({}, { Call: undefined });
    useEnv(w.env);
    await expect(api.listLinks('p1')).rejects.toMatchObject({ message: expect.stringMatching(/no Call binding/) });
  });

  it('opens the console through the binding', async () => {
    const w = fakeWindow();
    useEnv(w.env);
    expect(await api.openConsole('p1', 'n1')).toEqual({ kind: 'opened' });
    expect(w.App.OpenConsole).toHaveBeenCalledWith('p1', 'n1');
  });

  it('opens a capture in Wireshark through the binding, or gives the file and why not', async () => {
    const view = { opened: true, file_name: 'a_to_b.pcap', path: '/p/captures/a_to_b.pcap' };
    const OpenCapture = vi.fn(async () => view);
    const w = fakeWindow({}, { OpenCapture });
    useEnv(w.env);
    expect(await api.openCapture('p1', 'l1')).toEqual({ kind: 'opened', fileName: 'a_to_b.pcap', path: '/p/captures/a_to_b.pcap' });
    expect(OpenCapture).toHaveBeenCalledWith('p1', 'l1');
    const reason = 'Wireshark is not installed: install it (sudo apt-get install wireshark) and try again, or open /p/captures/a_to_b.pcap in a capture viewer';
    OpenCapture.mockResolvedValueOnce({ ...view, opened: false, reason } as never);
    expect(await api.openCapture('p1', 'l1')).toEqual({ kind: 'file', fileName: 'a_to_b.pcap', path: '/p/captures/a_to_b.pcap', url: null, reason });
    expect(api.pcapUrl('p1', 'l1')).toBeNull();
    OpenCapture.mockRejectedValueOnce(new Error('{"message":"This link is not capturing; start a capture first, then open it in Wireshark","code":"conflict"}'));
    await expect(api.openCapture('p1', 'l1')).rejects.toMatchObject({ code: 'conflict', status: 0 });
    expect(w.fetch).not.toHaveBeenCalled();
  });

  it('delivers only the subscribed project\'s events from the "notification" event', () => {
    const w = fakeWindow();
    useEnv(w.env);
    const proj: LiveEvent[] = [];
    const global: LiveEvent[] = [];
    const stopP = api.subscribe('p1', (e) => proj.push(e));
    api.subscribe(null, (e) => global.push(e));
    w.emit({ action: 'node.updated', project_id: 'p1', event: { node_id: 'a' } });
    w.emit({ action: 'node.updated', project_id: 'p2', event: { node_id: 'b' } });
    w.emit({ action: 'log.error', project_id: 'p1', event: { message: 'PC2 has stopped by itself' } });
    w.emit({ action: 'project.updated', project_id: 'p1', event: { project_id: 'p1' } });
    w.emit({ action: 'compute.updated', event: { compute_id: 'c1' } });
    w.emit({ action: 'ping', event: {} });
    w.emit({ action: 'resync' });
    w.emit(null);
    expect(proj).toEqual([
      { action: 'node.updated', event: { node_id: 'a' } }, { action: 'log.error', event: { message: 'PC2 has stopped by itself' } }, { action: 'resync' },
    ]);
    expect(global).toEqual([
      { action: 'project.updated', event: { project_id: 'p1' } }, { action: 'compute.updated', event: { compute_id: 'c1' } }, { action: 'resync' },
    ]);
    stopP();
    expect(w.off).toHaveBeenCalledTimes(1);
  });
});

describe('toAppError', () => {
  it('keeps AppErrors, reads JSON strings, wraps the rest', () => {
    const e = new AppError('x', 404, 'not_found');
    expect(toAppError(e)).toBe(e);
    expect(toAppError('{"code":"invalid","message":"bad","field":"console"}')).toMatchObject({ message: 'bad', status: 0, code: 'invalid', field: 'console' });
    expect(toAppError('plain words')).toMatchObject({ message: 'plain words', code: 'internal' });
    expect(toAppError(new Error('boom'))).toMatchObject({ message: 'boom', code: 'internal' });
    expect(toAppError(new Error('{"code":"not_found","message":"Node ID x doesn\'t exist","status":404}'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(toAppError(new Error('{"unrelated":true}'))).toMatchObject({ message: '{"unrelated":true}', code: 'internal' });
    expect(toAppError('{"code":"made_up","message":"x"}')).toMatchObject({ code: 'internal' });
  });
});

/** FakeXhr is an XMLHttpRequest the test answers: it records the request
 * and lets the test report upload progress and the answer. */
class FakeXhr {
  static last: FakeXhr | null = null;
  method = '';
  url = '';
  headers: Record<string, string> = {};
  body: Blob | null = null;
  status = 0;
  statusText = '';
  responseText = '';
  aborted = false;
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  upload: { onprogress: ((ev: { loaded: number; total: number; lengthComputable: boolean }) => void) | null } = { onprogress: null };
  constructor() {
    FakeXhr.last = this;
  }
  open(method: string, url: string) {
    this.method = method;
    this.url = url;
  }
  setRequestHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  send(body: Blob) {
    this.body = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
  answer(status: number, body = '') {
    this.status = status;
    this.statusText = status === 204 ? 'No Content' : 'Error';
    this.responseText = body;
    this.onload?.();
  }
}

describe('QEMU images, templates and appliances', () => {
  it('lists images, asks the capabilities and makes a template on their routes', async () => {
    const img = { filename: 'alpine.qcow2', path: '/images/QEMU/alpine.qcow2', md5sum: 'ab12', filesize: 1024 };
    const caps = { kvm: [], acceleration: 'tcg', acceleration_note: 'running without hardware acceleration: slower' };
    const tpl = { template_id: 't1', name: 'Alpine', template_type: 'qemu', category: 'guest', compute_id: 'local', default_name_format: '{name}-{0}', symbol: ':/symbols/qemu_guest.svg', builtin: false };
    const { fetch, calls } = fakeFetch(json([img]), json(caps), json(tpl, 201));
    useEnv({ fetch, location: LOCATION });
    expect(await api.listImages('qemu')).toEqual([img]);
    expect(await qemuCapabilities()).toEqual(caps);
    expect(await api.createTemplate({ template_type: 'qemu', name: 'Alpine', compute_id: 'local', hda_disk_image: 'alpine.qcow2', ram: 256 })).toEqual(tpl);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual([
      'GET /v2/computes/local/qemu/images', 'GET /v2/computes/local/qemu/capabilities', 'POST /v2/templates',
    ]);
    expect(calls[2].body).toEqual({ template_type: 'qemu', name: 'Alpine', compute_id: 'local', hda_disk_image: 'alpine.qcow2', ram: 256 });
  });

  it('imports an appliance: its JSON as the body, the templates made and the images missing back', async () => {
    const missing = { version: '3.18', filename: 'alpine.qcow2', md5sum: 'ab12', download_url: 'https://example.org/alpine' };
    const { fetch, calls } = fakeFetch(json({ templates: [], missing: [missing] }, 201), json({ message: 'Not a GNS3 appliance: registry_version is missing', status: 400, code: 'invalid', field: 'registry_version' }, 400));
    useEnv({ fetch, location: LOCATION });
    expect(await api.importAppliance({ name: 'Alpine', registry_version: 4 })).toEqual({ templates: [], missing: [missing] });
    expect(calls[0]).toMatchObject({ method: 'POST', url: '/v2/appliances/import', body: { name: 'Alpine', registry_version: 4 } });
    await expect(api.importAppliance({})).rejects.toMatchObject({ status: 400, message: 'Not a GNS3 appliance: registry_version is missing', field: 'registry_version' });
  });

  it('uploads an image as the raw body, telling its progress, from the page', async () => {
    useEnv({ fetch: fakeFetch().fetch, location: LOCATION, XMLHttpRequest: FakeXhr });
    const file = new Blob([new Uint8Array(1000)]);
    const seen: [number, number][] = [];
    const u = api.uploadImage('qemu', file, 'my disk.qcow2', (sent, total) => seen.push([sent, total]));
    const x = FakeXhr.last!;
    expect([x.method, x.url, x.body]).toEqual(['POST', 'http://127.0.0.1:3080/v2/computes/local/qemu/images/my%20disk.qcow2', file]);
    expect(x.headers).toEqual({ 'Content-Type': 'application/octet-stream', 'X-Nodedesk-Origin': 'browser' });
    x.upload.onprogress?.({ loaded: 400, total: 1000, lengthComputable: true });
    x.answer(204);
    await u.done;
    expect(seen).toEqual([[400, 1000], [1000, 1000]]);
  });

  it("rejects an upload with the server's error, a cut-off one as unreachable, and a cancelled one", async () => {
    useEnv({ fetch: fakeFetch().fetch, location: LOCATION, XMLHttpRequest: FakeXhr });
    const refused = api.uploadImage('qemu', new Blob(['x']), 'a.img');
    FakeXhr.last!.answer(409, JSON.stringify({ message: 'a.img exists in the images folder with another md5', status: 409, code: 'conflict' }));
    await expect(refused.done).rejects.toMatchObject({ status: 409, code: 'conflict', message: 'a.img exists in the images folder with another md5' });
    const cut = api.uploadImage('qemu', new Blob(['x']), 'a.img');
    FakeXhr.last!.onerror?.();
    await expect(cut.done).rejects.toMatchObject({ code: 'unreachable' });
    const cancelled = api.uploadImage('qemu', new Blob(['x']), 'a.img');
    cancelled.abort();
    await expect(cancelled.done).rejects.toMatchObject({ message: 'The upload of a.img was cancelled' });
  });

  it('says the window cannot upload, and imports an appliance through Call', async () => {
    const w = fakeWindow({ 'POST /v2/appliances/import': ok({ templates: [], missing: [] }, 201) });
    useEnv(w.env);
    await expect(api.uploadImage('qemu', new Blob(['x']), 'a.img').done).rejects.toMatchObject({ message: expect.stringMatching(/window cannot upload/) });
    expect(await api.importAppliance({ name: 'x' })).toEqual({ templates: [], missing: [] });
    expect(w.call.mock.calls).toEqual([['POST', '/v2/appliances/import', '{"name":"x"}']]);
  });
});

describe('Docker images and web consoles', () => {
  it("lists the Docker Engine's images on the compute's docker route, each once", async () => {
    const { fetch, calls } = fakeFetch(json([{ image: 'alpine:latest' }, { image: 'nodedesk-test/busybox:latest' }, { image: 'alpine:latest' }, { other: 1 }]));
    useEnv({ fetch, location: LOCATION });
    expect(await listDockerImages()).toEqual([{ image: 'alpine:latest' }, { image: 'nodedesk-test/busybox:latest' }]);
    expect(calls.map((c) => `${c.method} ${c.url}`)).toEqual(['GET /v2/computes/local/docker/images']);
  });

  it("rejects with the server's sentence when Docker cannot be reached", async () => {
    const why = 'Docker is not running at unix:///var/run/docker.sock: start it (systemctl start docker)';
    const { fetch } = fakeFetch(json({ message: why, status: 409, code: 'conflict' }, 409));
    useEnv({ fetch, location: LOCATION });
    await expect(listDockerImages()).rejects.toMatchObject({ status: 409, code: 'conflict', message: why });
  });

  it("opens a web console in the system's browser from the window, and leaves a browser's link alone", () => {
    useEnv({ fetch: fakeFetch().fetch, location: LOCATION });
    expect(api.openExternal('http://127.0.0.1:5004/')).toBe(false);
    const w = fakeWindow();
    const BrowserOpenURL = vi.fn();
    useEnv({ ...w.env, runtime: { ...w.env.runtime!, BrowserOpenURL } });
    expect(api.openExternal('http://127.0.0.1:5004/admin')).toBe(true);
    expect(BrowserOpenURL).toHaveBeenCalledWith('http://127.0.0.1:5004/admin');
    useEnv(fakeWindow().env);
    expect(() => api.openExternal('http://127.0.0.1:5004/')).toThrow(/open http:\/\/127\.0\.0\.1:5004\/ in yours/);
  });
});
