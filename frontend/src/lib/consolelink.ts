// The page's connection to one node's console, or to its aux console (a
// shell in a Docker node's container), over either door: in a browser the
// API's websocket (…/nodes/{id}/console/ws, …/console/aux/ws: what is sent
// goes to the console, what the console writes comes back as binary
// messages); in the window the door's console session (ConsoleOpen or
// ConsoleOpenAux, then ConsoleWrite, ConsoleClose, output as the runtime
// event "console:<id>"), because the window's page is of another origin
// than the API and its requests never go over HTTP. The terminal never
// knows which.

import { AppError, toAppError } from './errors';
import type { Connection } from './transport';

/** What a console link tells its terminal. */
export interface ConsoleHandlers {
  /** Bytes the console wrote. */
  onData(bytes: Uint8Array): void;
  /** The link ended without being closed by the page (node stopped,
   * console reset, server gone); no more data comes. */
  onClose(reason: string): void;
}

/** An open console link. */
export interface ConsoleLink {
  /** send types data into the console (in order). */
  send(data: string): void;
  /** close ends the link; onClose is not called. */
  close(): void;
}

/** Which of a node's consoles a link reaches: its console, or its aux
 * console (a shell in a Docker node's container). */
export type ConsoleWhich = 'console' | 'aux';

/** What a message calls each console. */
const CONSOLE_NAME: Record<ConsoleWhich, string> = { console: 'console', aux: 'aux console' };

/** The API's websocket path of each console, below the node's. */
const WS_PATH: Record<ConsoleWhich, string> = { console: 'console/ws', aux: 'console/aux/ws' };

/** The door's binding that opens a session on each console. */
const OPEN_BINDING = { console: 'ConsoleOpen', aux: 'ConsoleOpenAux' } as const satisfies Record<ConsoleWhich, string>;

/** The part of a browser WebSocket a console link uses. */
interface ConsoleSocket {
  binaryType: string;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code?: number; reason?: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  send(data: string): void;
  close(): void;
}

/** A console session's event, as the window's door emits it
 * (desktop.ConsoleEvent): data is base64. */
interface ConsoleEvent {
  data?: string;
  dropped?: number;
  closed?: boolean;
  reason?: string;
}

const encoder = new TextEncoder();

/** dropNote is what the terminal shows where output was dropped. */
export function dropNote(n: number): Uint8Array {
  return encoder.encode(`\r\n\x1b[2m[${n} bytes of output dropped: the page was too slow]\x1b[0m\r\n`);
}

/** fromBase64 decodes a base64 string into bytes. */
export function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/** sessionId is a fresh id for a window console session. */
export function sessionId(): string {
  const b = new Uint8Array(8);
  globalThis.crypto.getRandomValues(b);
  return 'c' + Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
}

function openSocket(c: Connection, pid: string, nid: string, which: ConsoleWhich, h: ConsoleHandlers): Promise<ConsoleLink> {
  const WS = c.env.WebSocket as unknown as (new (url: string) => ConsoleSocket) | undefined;
  if (!WS) return Promise.reject(new AppError(`This browser has no WebSocket; open the ${CONSOLE_NAME[which]} in a terminal`, 0, 'internal'));
  const loc = c.env.location ?? { protocol: 'http:', host: '127.0.0.1:3080' };
  const url = `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/v2/projects/${encodeURIComponent(pid)}/nodes/${encodeURIComponent(nid)}/${WS_PATH[which]}`;
  return new Promise((resolve, reject) => {
    const ws = new WS(url);
    ws.binaryType = 'arraybuffer';
    let open = false;
    let closed = false;
    const link: ConsoleLink = {
      send: (data) => {
        if (!closed) ws.send(data);
      },
      close: () => {
        closed = true;
        ws.close();
      },
    };
    ws.onopen = () => {
      open = true;
      resolve(link);
    };
    ws.onmessage = (m) => {
      if (closed) return;
      const d = m.data;
      if (d instanceof ArrayBuffer) h.onData(new Uint8Array(d));
      else if (typeof d === 'string') h.onData(encoder.encode(d));
    };
    ws.onerror = () => {}; // onclose follows
    ws.onclose = (ev) => {
      if (!open) {
        // The browser hides the refusal's body (409: not started, no
        // telnet or aux console; 404): the node's status tells the rest.
        reject(new AppError(`The ${CONSOLE_NAME[which]} could not be reached`, 0, 'conflict'));
        return;
      }
      if (closed) return;
      closed = true;
      h.onClose(ev?.reason || 'the console closed the connection');
    };
  });
}

async function openSession(c: Connection, pid: string, nid: string, which: ConsoleWhich, h: ConsoleHandlers): Promise<ConsoleLink> {
  const app = c.app;
  const rt = c.env.runtime;
  const open = app?.[OPEN_BINDING[which]];
  if (!app || typeof open !== 'function' || !rt) {
    const tabs = which === 'aux' ? 'aux console tabs' : 'console tabs';
    throw new AppError(`This nodedesk window cannot open ${tabs}; update nodedesk, or open the ${CONSOLE_NAME[which]} in a terminal`, 0, 'internal');
  }
  const id = sessionId();
  let closed = false;
  let opened = false;
  let early: string | null = null; // a session that ended before ConsoleOpen answered
  const off = rt.EventsOn(`console:${id}`, (raw) => {
    const ev = raw as ConsoleEvent | null;
    if (!ev || closed) return;
    if (ev.dropped) h.onData(dropNote(ev.dropped));
    if (ev.data) h.onData(fromBase64(ev.data));
    if (ev.closed) {
      if (!opened) {
        early = ev.reason || 'the console closed the connection';
        return;
      }
      closed = true;
      stop();
      h.onClose(ev.reason || 'the console closed the connection');
    }
  });
  const stop = () => {
    if (typeof off === 'function') off();
  };
  try {
    await open.call(app, id, pid, nid);
  } catch (err) {
    closed = true;
    stop();
    throw toAppError(err);
  }
  opened = true;
  // Keys go one write at a time: Wails runs each call on its own
  // goroutine, so two writes in flight could arrive swapped.
  let queued = '';
  let writing = false;
  const pump = () => {
    if (writing || queued === '' || closed) return;
    const data = queued;
    queued = '';
    writing = true;
    void Promise.resolve(app.ConsoleWrite?.(id, data))
      .catch(() => {}) // an ended session says so with its closed event
      .finally(() => {
        writing = false;
        pump();
      });
  };
  const link: ConsoleLink = {
    send: (data) => {
      queued += data;
      pump();
    },
    close: () => {
      if (closed) return;
      closed = true;
      stop();
      void Promise.resolve(app.ConsoleClose?.(id)).catch(() => {});
    },
  };
  if (early !== null) {
    const reason: string = early;
    closed = true;
    stop();
    queueMicrotask(() => h.onClose(reason));
  }
  return link;
}

/** openConsoleLink connects to node nid's console of project pid — or,
 * which 'aux', to its aux console — through the page's door; it rejects
 * with an AppError when the console cannot be reached (the node is not
 * started, has no such console, is gone). */
export function openConsoleLink(c: Connection, pid: string, nid: string, h: ConsoleHandlers, which: ConsoleWhich = 'console'): Promise<ConsoleLink> {
  return c.transport === 'window' ? openSession(c, pid, nid, which, h) : openSocket(c, pid, nid, which, h);
}
