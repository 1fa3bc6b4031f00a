import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AppError, backoff, createApi, toAppError, type Bindings, type Env } from './api';
import type { LiveEvent } from './types';
import { project, vpcs } from './testdata';

type FetchCall = { url: string; method: string; body: unknown; headers: unknown };

/** fakeFetch answers each request with the next reply and records it. */
function fakeFetch(...replies: (Response | Error)[]) {
  const calls: FetchCall[] = [];
  const f = vi.fn(async (url: string, init?: RequestInit) => {
    calls.push({ url, method: init?.method ?? 'GET', body: init?.body ? JSON.parse(String(init.body)) : undefined, headers: init?.headers });
    const r = replies.shift();
    if (!r) throw new Error('no reply left');
    if (r instanceof Error) throw r;
    return r;
  });
  return { fetch: f as unknown as typeof fetch, calls };
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

describe('api over REST (browser)', () => {
  it('uses REST when the page has no Go bindings', () => {
    expect(createApi({ fetch: fakeFetch().fetch }).transport).toBe('rest');
  });

  it('sends each call to the matching /v2 route with a JSON body', async () => {
    const p = project('p1');
    const n = vpcs('n1');
    const { fetch, calls } = fakeFetch(json([p]), json(n, 201), json(n), new Response(null, { status: 204 }), json(n), new Response(null, { status: 204 }), json(n, 201));
    const api = createApi({ fetch });
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
    expect(calls[2].headers).toEqual({ 'Content-Type': 'application/json' });
    expect(calls[0].body).toBeUndefined();
  });

  it('turns an error answer into an AppError with the server message and status', async () => {
    const { fetch } = fakeFetch(json({ message: 'Console port 80 cannot be used', status: 400 }, 400));
    const err = await createApi({ fetch }).updateNode('p', 'n', { console: 80 }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ message: 'Console port 80 cannot be used', status: 400, code: 'invalid' });
  });

  it('explains a non-JSON error and an unreachable server', async () => {
    const { fetch } = fakeFetch(new Response('oops', { status: 502, statusText: 'Bad Gateway' }), new TypeError('Failed to fetch'));
    const api = createApi({ fetch });
    await expect(api.listProjects()).rejects.toMatchObject({ status: 502, message: 'nodedesk answered 502 Bad Gateway' });
    await expect(api.listProjects()).rejects.toMatchObject({ status: 0, code: 'unreachable', message: expect.stringMatching(/Cannot reach nodedesk.*still running/) });
  });

  it('gives the telnet command of a console in a browser', async () => {
    const { fetch, calls } = fakeFetch(json(vpcs('n1', { console: 5004, console_host: '0.0.0.0' })), json(vpcs('n2', { console: null, console_type: null })));
    const api = createApi({ fetch });
    expect(await api.openConsole('p', 'n1')).toEqual({ kind: 'command', command: 'telnet 127.0.0.1 5004', host: '127.0.0.1', port: 5004 });
    expect(calls[0].url).toBe('/v2/projects/p/nodes/n1');
    await expect(api.openConsole('p', 'n2')).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/has no console/) });
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
  });
  afterEach(() => vi.useRealTimers());

  const env = (): Env => ({ WebSocket: FakeSocket, location: { protocol: 'http:', host: '127.0.0.1:3080' } });

  it('follows a project on its websocket, passing node and link events and skipping pings', () => {
    const got: LiveEvent[] = [];
    const states: string[] = [];
    const stop = createApi(env()).subscribe('p1', (e) => got.push(e), (s) => states.push(s));
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

  it('follows project events on the controller websocket', () => {
    const got: LiveEvent[] = [];
    createApi(env()).subscribe(null, (e) => got.push(e));
    const ws = FakeSocket.all[0];
    expect(ws.url).toBe('ws://127.0.0.1:3080/v2/notifications/ws');
    ws.send('compute.updated');
    ws.send('project.updated', { project_id: 'p1', name: 'x' });
    expect(got).toEqual([{ action: 'project.updated', event: { project_id: 'p1', name: 'x' } }]);
  });

  it('reconnects with backoff and asks for a resync after a drop', () => {
    const got: LiveEvent[] = [];
    const states: string[] = [];
    const stop = createApi(env()).subscribe('p1', (e) => got.push(e), (s) => states.push(s));
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

/** fakeWindow is window.go.desktop.App and window.runtime as Wails makes them. */
function fakeWindow(over: Partial<Record<keyof Bindings, (...a: never[]) => Promise<unknown>>> = {}) {
  const listeners: ((msg: unknown) => void)[] = [];
  const App = {
    Ready: vi.fn(async () => 'ready'),
    ListProjects: vi.fn(async () => [project('p1')]),
    CreateNodeFromTemplate: vi.fn(async () => vpcs('n1')),
    UpdateNode: vi.fn(async () => vpcs('n1')),
    DeleteNode: vi.fn(async () => undefined),
    NodeAction: vi.fn(async () => vpcs('n1', { status: 'started' })),
    ProjectAction: vi.fn(async () => undefined),
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
  }) as unknown as typeof globalThis.fetch;
  return { env: { go: { desktop: { App } }, runtime, fetch } as Env, App, emit: (m: unknown) => listeners.forEach((l) => l(m)), off, fetch };
}

describe('api in the Wails window', () => {
  it('picks the bindings when window.go.desktop.App exists and never calls fetch', async () => {
    const w = fakeWindow();
    const api = createApi(w.env);
    expect(api.transport).toBe('window');
    expect(await api.ready()).toBe('ready');
    expect(await api.listProjects()).toEqual([project('p1')]);
    await api.createNodeFromTemplate('p1', 't1', { x: 5, y: 6 });
    await api.updateNode('p1', 'n1', { properties: { startup_script: 'ip dhcp' } });
    await api.deleteNode('p1', 'n1');
    expect((await api.nodeAction('p1', 'n1', 'start')).status).toBe('started');
    await api.projectAction('p1', 'suspend');
    expect(w.App.CreateNodeFromTemplate).toHaveBeenCalledWith('p1', 't1', { x: 5, y: 6 });
    expect(w.App.UpdateNode).toHaveBeenCalledWith('p1', 'n1', { properties: { startup_script: 'ip dhcp' } });
    expect(w.App.DeleteNode).toHaveBeenCalledWith('p1', 'n1');
    expect(w.App.NodeAction).toHaveBeenCalledWith('p1', 'n1', 'start');
    expect(w.App.ProjectAction).toHaveBeenCalledWith('p1', 'suspend');
    expect(w.fetch).not.toHaveBeenCalled();
  });

  it('parses a binding rejection {"code","message","status"} into an AppError', async () => {
    const w = fakeWindow({
      UpdateNode: async () => {
        throw '{"code":"conflict","message":"Another node of this project is already named PC2; choose another name","status":409}';
      },
    });
    const err = await createApi(w.env).updateNode('p1', 'n1', { name: 'PC2' }).catch((e) => e);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ status: 409, code: 'conflict', message: expect.stringMatching(/already named PC2/) });
  });

  it('reads the error Wails 2.16 really rejects with: an Error whose message is the JSON', async () => {
    const json = JSON.stringify({ code: 'conflict', message: 'No terminal could be opened (exec: "x-terminal-emulator": executable file not found in $PATH)', status: 409 });
    const w = fakeWindow({
      UpdateNode: async () => {
        throw new Error(json);
      },
    });
    const err = await createApi(w.env).updateNode('p1', 'n1', {}).catch((e) => e);
    expect(err).toMatchObject({ status: 409, code: 'conflict' });
    expect(toAppError(new Error(json))).toMatchObject({ status: 409, code: 'conflict', message: expect.stringMatching(/^No terminal could be opened \(exec: "x-terminal-emulator"/) });
  });

  it('gives the console command when the window cannot start a terminal', async () => {
    const w = fakeWindow({
      OpenConsole: async () => {
        throw new Error('{"code":"conflict","message":"No terminal could be opened","status":409}');
      },
      GetNode: async () => vpcs('n1', { console: 5007 }),
    });
    expect(await createApi(w.env).openConsole('p1', 'n1')).toEqual({
      kind: 'command', command: 'telnet 127.0.0.1 5007', host: '127.0.0.1', port: 5007, reason: 'No terminal could be opened',
    });
  });

  it('reports a missing binding instead of failing obscurely', async () => {
    const w = fakeWindow();
    await expect(createApi(w.env).listLinks('p1')).rejects.toMatchObject({ message: expect.stringMatching(/no ListLinks binding/) });
  });

  it('opens the console through the binding', async () => {
    const w = fakeWindow();
    expect(await createApi(w.env).openConsole('p1', 'n1')).toEqual({ kind: 'opened' });
    expect(w.App.OpenConsole).toHaveBeenCalledWith('p1', 'n1');
  });

  it('delivers only the subscribed project\'s events from the "notification" event', () => {
    const w = fakeWindow();
    const api = createApi(w.env);
    const proj: LiveEvent[] = [];
    const global: LiveEvent[] = [];
    const stopP = api.subscribe('p1', (e) => proj.push(e));
    api.subscribe(null, (e) => global.push(e));
    w.emit({ action: 'node.updated', project_id: 'p1', event: { node_id: 'a' } });
    w.emit({ action: 'node.updated', project_id: 'p2', event: { node_id: 'b' } });
    w.emit({ action: 'project.updated', project_id: 'p1', event: { project_id: 'p1' } });
    w.emit({ action: 'ping', event: {} });
    w.emit({ action: 'resync' });
    w.emit(null);
    expect(proj).toEqual([{ action: 'node.updated', event: { node_id: 'a' } }, { action: 'resync' }]);
    expect(global).toEqual([{ action: 'project.updated', event: { project_id: 'p1' } }, { action: 'resync' }]);
    stopP();
    expect(w.off).toHaveBeenCalledTimes(1);
  });
});

describe('toAppError', () => {
  it('keeps AppErrors, reads JSON strings, wraps the rest', () => {
    const e = new AppError('x', 404);
    expect(toAppError(e)).toBe(e);
    expect(e.code).toBe('not_found');
    expect(toAppError('{"code":"invalid","message":"bad","status":400}')).toMatchObject({ message: 'bad', status: 400, code: 'invalid' });
    expect(toAppError('plain words')).toMatchObject({ message: 'plain words', status: 500 });
    expect(toAppError(new Error('boom'))).toMatchObject({ message: 'boom', status: 500, code: 'internal' });
    expect(toAppError(new Error('{"code":"not_found","message":"Node ID x doesn\'t exist","status":404}'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(toAppError(new Error('{"unrelated":true}'))).toMatchObject({ message: '{"unrelated":true}', status: 500 });
  });
});
