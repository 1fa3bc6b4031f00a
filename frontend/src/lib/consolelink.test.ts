import { describe, expect, it, vi } from 'vitest';
import { AppError } from './errors';
import { dropNote, fromBase64, openConsoleLink } from './consolelink';
import { connect, type Env } from './transport';

const text = (b: Uint8Array) => new TextDecoder().decode(b);
const b64 = (s: string) => btoa(s);

/** A browser WebSocket stand-in. */
class FakeSocket {
  static all: FakeSocket[] = [];
  binaryType = 'blob';
  onopen: ((ev: unknown) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onclose: ((ev: { code?: number; reason?: string }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;
  sent: string[] = [];
  closed = false;
  constructor(public url: string) {
    FakeSocket.all.push(this);
  }
  send(d: string) {
    this.sent.push(d);
  }
  close() {
    this.closed = true;
  }
}

function handlers() {
  const got: string[] = [];
  const closed: string[] = [];
  return { got, closed, h: { onData: (b: Uint8Array) => got.push(text(b)), onClose: (r: string) => closed.push(r) } };
}

describe('a console link in a browser', () => {
  const env = (): Env => ({ WebSocket: FakeSocket as unknown as Env['WebSocket'], location: { protocol: 'http:', host: '127.0.0.1:3080' } });

  it('opens the node’s console websocket, reads binary and text messages, sends typing', async () => {
    FakeSocket.all = [];
    const { got, closed, h } = handlers();
    const p = openConsoleLink(connect(env()), 'p 1', 'n1', h);
    const ws = FakeSocket.all[0];
    expect(ws.url).toBe('ws://127.0.0.1:3080/v2/projects/p%201/nodes/n1/console/ws');
    expect(ws.binaryType).toBe('arraybuffer');
    ws.onopen?.({});
    const link = await p;
    ws.onmessage?.({ data: new TextEncoder().encode('PC1> ').buffer });
    ws.onmessage?.({ data: 'text' });
    link.send('show ip\r');
    expect(got).toEqual(['PC1> ', 'text']);
    expect(ws.sent).toEqual(['show ip\r']);
    ws.onclose?.({ code: 1000, reason: 'the console closed the connection' });
    expect(closed).toEqual(['the console closed the connection']);
  });

  it('rejects when the server refuses before the upgrade, and a closed link says nothing more', async () => {
    FakeSocket.all = [];
    const { closed, h } = handlers();
    const p = openConsoleLink(connect(env()), 'p', 'n', h);
    FakeSocket.all[0].onerror?.({});
    FakeSocket.all[0].onclose?.({ code: 1006 });
    await expect(p).rejects.toBeInstanceOf(AppError);
    const q = openConsoleLink(connect(env()), 'p', 'n', h);
    FakeSocket.all[1].onopen?.({});
    const link = await q;
    link.close();
    expect(FakeSocket.all[1].closed).toBe(true);
    FakeSocket.all[1].onclose?.({ code: 1000 });
    link.send('x');
    expect(closed).toEqual([]);
    expect(FakeSocket.all[1].sent).toEqual([]);
  });

  it('opens the aux console’s websocket for an aux link, and names it when refused', async () => {
    FakeSocket.all = [];
    const { got, h } = handlers();
    const p = openConsoleLink(connect({ ...env(), location: { protocol: 'https:', host: 'lab:3443' } }), 'p1', 'n 1', h, 'aux');
    const ws = FakeSocket.all[0];
    expect(ws.url).toBe('wss://lab:3443/v2/projects/p1/nodes/n%201/console/aux/ws');
    ws.onopen?.({});
    const link = await p;
    ws.onmessage?.({ data: new TextEncoder().encode('/ # ').buffer });
    link.send('echo hi\r');
    expect(got).toEqual(['/ # ']);
    expect(ws.sent).toEqual(['echo hi\r']);

    const q = openConsoleLink(connect(env()), 'p1', 'n1', handlers().h, 'aux');
    FakeSocket.all[1].onclose?.({ code: 1006 });
    await expect(q).rejects.toThrow('The aux console could not be reached');
  });
});

/** The window's console bindings and runtime events, as the door acts. */
function fakeWindow() {
  const listeners = new Map<string, (msg: unknown) => void>();
  const writes: [string, string][] = [];
  let release: (() => void) | null = null;
  const App = {
    Call: vi.fn(),
    ConsoleOpen: vi.fn(async (id: string, _pid: string, nid: string) => {
      if (nid === 'stopped') throw JSON.stringify({ message: 'PC2 is not started', code: 'conflict' });
      listeners.get(`console:${id}`)?.({ data: b64('PC1> ') }); // output at once: the page listens already
    }),
    ConsoleOpenAux: vi.fn(async (id: string, _pid: string, nid: string) => {
      if (nid === 'stopped') throw JSON.stringify({ message: 'box is stopped; start it to use its aux console', code: 'conflict' });
      listeners.get(`console:${id}`)?.({ data: b64('/ # ') });
    }),
    ConsoleWrite: vi.fn((id: string, data: string) => {
      writes.push([id, data]);
      return new Promise<void>((r) => (release = r)); // one at a time
    }),
    ConsoleClose: vi.fn(async () => {}),
  };
  const off = vi.fn();
  const runtime = {
    EventsOn: vi.fn((name: string, cb: (msg: unknown) => void) => {
      listeners.set(name, cb);
      return () => {
        off(name);
        listeners.delete(name);
      };
    }),
  };
  const env = { go: { desktop: { App } }, runtime } as unknown as Env;
  return { env, App, listeners, writes, off, release: () => release?.() };
}

describe('a console link in the window', () => {
  it('listens before it opens, so the first output is not lost; decodes base64 and dropped output', async () => {
    const w = fakeWindow();
    const { got, h } = handlers();
    await openConsoleLink(connect(w.env), 'p1', 'n1', h);
    const [id, pid, nid] = w.App.ConsoleOpen.mock.calls[0];
    expect([pid, nid]).toEqual(['p1', 'n1']);
    expect(id).toMatch(/^[\w-]{1,64}$/);
    w.listeners.get(`console:${id}`)?.({ data: b64('ok'), dropped: 5 });
    expect(got).toEqual(['PC1> ', text(dropNote(5)), 'ok']);
  });

  it('writes one at a time, in order, coalescing what was typed meanwhile', async () => {
    const w = fakeWindow();
    const link = await openConsoleLink(connect(w.env), 'p1', 'n1', handlers().h);
    link.send('s');
    link.send('h');
    link.send('ow');
    expect(w.writes.map((x) => x[1])).toEqual(['s']);
    w.release();
    await vi.waitFor(() => expect(w.writes.map((x) => x[1])).toEqual(['s', 'how']));
  });

  it('ends on the closed event, and closes the session when the page closes it', async () => {
    const w = fakeWindow();
    const { closed, h } = handlers();
    await openConsoleLink(connect(w.env), 'p1', 'n1', h);
    const id = w.App.ConsoleOpen.mock.calls[0][0];
    w.listeners.get(`console:${id}`)?.({ closed: true, reason: 'the console closed the connection' });
    expect(closed).toEqual(['the console closed the connection']);
    expect(w.off).toHaveBeenCalledWith(`console:${id}`);

    const link = await openConsoleLink(connect(w.env), 'p1', 'n1', h);
    const id2 = w.App.ConsoleOpen.mock.calls[1][0];
    expect(id2).not.toBe(id);
    link.close();
    expect(w.App.ConsoleClose).toHaveBeenCalledWith(id2);
    expect(w.off).toHaveBeenCalledWith(`console:${id2}`);
    expect(closed).toHaveLength(1);
  });

  it('rejects with the door’s error, and stops listening', async () => {
    const w = fakeWindow();
    const err = await openConsoleLink(connect(w.env), 'p1', 'stopped', handlers().h).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('conflict');
    expect((err as AppError).message).toBe('PC2 is not started');
    expect(w.off).toHaveBeenCalledTimes(1);
  });
});

describe('an aux console link in the window', () => {
  it('opens its session with ConsoleOpenAux, then reads, writes and closes it as a console session', async () => {
    const w = fakeWindow();
    const { got, closed, h } = handlers();
    const link = await openConsoleLink(connect(w.env), 'p1', 'n1', h, 'aux');
    expect(w.App.ConsoleOpen).not.toHaveBeenCalled();
    const [id, pid, nid] = w.App.ConsoleOpenAux.mock.calls[0];
    expect([pid, nid]).toEqual(['p1', 'n1']);
    w.listeners.get(`console:${id}`)?.({ data: b64('aux-42\r\n') });
    expect(got).toEqual(['/ # ', 'aux-42\r\n']);
    link.send('echo aux-$((6*7))\r');
    expect(w.writes).toEqual([[id, 'echo aux-$((6*7))\r']]);
    link.close();
    expect(w.App.ConsoleClose).toHaveBeenCalledWith(id);
    expect(closed).toEqual([]);
  });

  it('rejects with the door’s error, or says to update a window without the binding', async () => {
    const w = fakeWindow();
    const err = await openConsoleLink(connect(w.env), 'p1', 'stopped', handlers().h, 'aux').catch((e: unknown) => e);
    expect((err as AppError).message).toBe('box is stopped; start it to use its aux console');
    expect(w.off).toHaveBeenCalledTimes(1);

    const old = fakeWindow();
    delete (old.App as Partial<typeof old.App>).ConsoleOpenAux; // a window of before the binding
    const refused = await openConsoleLink(connect(old.env), 'p1', 'n1', handlers().h, 'aux').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).message).toMatch(/cannot open aux console tabs; update nodedesk/);
    expect(old.App.ConsoleOpen).not.toHaveBeenCalled();
  });
});

describe('bytes', () => {
  it('decodes base64 to bytes', () => {
    expect([...fromBase64(b64('\x00\xff\x1b['))]).toEqual([0, 255, 27, 91]);
  });
});
