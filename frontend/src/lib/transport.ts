// The two transports of the page's one API client. The client is
// openapi-fetch over the paths generated from api/openapi.json: in a
// browser it uses the real fetch; in the Wails window it is given
// bindingFetch, which sends every request through the window's one binding,
// App.Call(method, path, body), and makes a Response of the status and body
// the Go side hands back — the same answer HTTP would give, errors
// included. So the list of operations is the contract's, written once, and
// both transports share it.
//
// Where a change comes from is said here too, and only here: a browser's
// requests carry X-Nodedesk-Origin: browser (the window's door marks its own
// calls), and a write of a gesture (gesture.ts) carries the gesture's id —
// as the X-Nodedesk-Gesture header over HTTP, through App.CallGesture in
// the window.

import createClient, { type Client } from 'openapi-fetch';
import type * as WindowApp from '../../wailsjs/go/desktop/App';
import { AppError, toAppError } from './errors';
import type { paths } from './openapi';

/** The window's bindings (window.go.desktop.App), as Wails generates their
 * types from Go (app/desktop/wailsgen). */
export type Bindings = typeof WindowApp;

/** One request as fetch takes it from openapi-fetch. */
export type Fetch = (req: Request) => Promise<Response>;

/** The part of the Wails runtime the page uses. */
export interface WailsRuntime {
  EventsOn(name: string, cb: (...data: unknown[]) => void): (() => void) | void;
  /** Opens a URL in the system's browser. */
  BrowserOpenURL?(url: string): void;
}

/** The part of a WebSocket the page uses. */
export interface WebSocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(): void;
}

/** The part of an XMLHttpRequest the page uses: an upload whose progress
 * it shows (fetch cannot say how much of a body went out). */
export interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob): void;
  abort(): void;
  readonly status: number;
  readonly statusText: string;
  readonly responseText: string;
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
  upload: { onprogress: ((ev: { loaded: number; total: number; lengthComputable: boolean }) => void) | null };
}

/** Where the page finds its transports; the real one is globalThis. */
export interface Env {
  go?: { desktop?: { App?: Partial<Bindings> } };
  runtime?: WailsRuntime;
  fetch?: Fetch;
  WebSocket?: new (url: string) => WebSocketLike;
  XMLHttpRequest?: new () => XhrLike;
  location?: { protocol: string; host: string };
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (t: never) => void;
}

/** Which door the page uses: the window's bindings or REST. */
export type Transport = 'window' | 'rest';

/** The page's connection to nodedesk. */
export interface Connection {
  transport: Transport;
  /** The typed client of every /v2 operation. */
  client: Client<paths>;
  /** The same client for the writes of one gesture (gesture.ts). */
  gestureClient(id: string): Client<paths>;
  /** The window's bindings; null in a browser. */
  app: Partial<Bindings> | null;
  env: Env;
}

/** The headers by which a request says where it comes from (api/history.go). */
export const ORIGIN_HEADER = 'X-Nodedesk-Origin';
export const GESTURE_HEADER = 'X-Nodedesk-Gesture';

/** Statuses whose Response cannot have a body. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** bindingFetch is a fetch that sends each request through App.Call. A
 * binding that rejects (the window's own error, desktop.FormatError's
 * JSON) rejects with an AppError. */
export function bindingFetch(call: Bindings['Call'] | undefined, callGesture?: Bindings['CallGesture']): Fetch {
  return async (req) => {
    if (typeof call !== 'function') {
      throw new AppError('This nodedesk window has no Call binding; update nodedesk', 0, 'internal');
    }
    const url = new URL(req.url);
    const body = req.body === null ? '' : await req.text();
    const gesture = req.headers.get(GESTURE_HEADER);
    let answer: { status: number; body: string };
    try {
      // A gesture's write goes through CallGesture; a window without it
      // (an older nodedesk) still makes the change, as an entry of its own.
      answer = gesture && typeof callGesture === 'function'
        ? await callGesture(gesture, req.method, url.pathname + url.search, body)
        : await call(req.method, url.pathname + url.search, body);
    } catch (err) {
      throw toAppError(err);
    }
    const empty = answer.body === '' || NO_BODY.has(answer.status);
    return new Response(empty ? null : answer.body, {
      status: answer.status,
      headers: empty ? { 'Content-Length': '0' } : { 'Content-Type': 'application/json' },
    });
  };
}

/** browserFetch is the page's fetch in a browser: its requests say they
 * come from nodedesk's page — reads too, as a GET may change a node
 * (GNS3's auto_idlepc) and its history entry must name the page (the
 * gesture header, when there is one, is already on the request). */
export function browserFetch(f: Fetch): Fetch {
  return (req) => {
    req.headers.set(ORIGIN_HEADER, 'browser');
    return f(req);
  };
}

/** The base of request URLs in the window: any will do, only the path
 * and query reach App.Call. */
const WINDOW_BASE = 'http://nodedesk.window';

/** connect picks the transport: the window's bindings when
 * window.go.desktop.App exists, REST otherwise. */
export function connect(env: Env): Connection {
  const app = env.go?.desktop?.App ?? null;
  const loc = env.location;
  const fetch: Fetch = app
    ? bindingFetch(app.Call, app.CallGesture)
    : browserFetch(env.fetch ?? (() => Promise.reject(new Error('this browser cannot send requests (no fetch)'))));
  const baseUrl = app ? WINDOW_BASE : loc ? `${loc.protocol}//${loc.host}` : '';
  // One client per gesture under way at most (a gesture is short): the
  // last one is kept, since a gesture's steps ask for it again.
  let last: { id: string; client: Client<paths> } | null = null;
  const gestureClient = (id: string) => {
    if (last?.id !== id) last = { id, client: createClient<paths>({ baseUrl, fetch, headers: { [GESTURE_HEADER]: id } }) };
    return last.client;
  };
  return { transport: app ? 'window' : 'rest', client: createClient<paths>({ baseUrl, fetch }), gestureClient, app, env };
}
