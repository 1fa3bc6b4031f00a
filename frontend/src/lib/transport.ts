// The two transports of the page's one API client. The client is
// openapi-fetch over the paths generated from api/openapi.json: in a
// browser it uses the real fetch; in the Wails window it is given
// bindingFetch, which sends every request through the window's one binding,
// App.Call(method, path, body), and makes a Response of the status and body
// the Go side hands back — the same answer HTTP would give, errors
// included. So the list of operations is the contract's, written once, and
// both transports share it.

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
}

/** The part of a WebSocket the page uses. */
export interface WebSocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(): void;
}

/** Where the page finds its transports; the real one is globalThis. */
export interface Env {
  go?: { desktop?: { App?: Partial<Bindings> } };
  runtime?: WailsRuntime;
  fetch?: Fetch;
  WebSocket?: new (url: string) => WebSocketLike;
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
  /** The window's bindings; null in a browser. */
  app: Partial<Bindings> | null;
  env: Env;
}

/** Statuses whose Response cannot have a body. */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** bindingFetch is a fetch that sends each request through App.Call. A
 * binding that rejects (the window's own error, desktop.FormatError's
 * JSON) rejects with an AppError. */
export function bindingFetch(call: Bindings['Call'] | undefined): Fetch {
  return async (req) => {
    if (typeof call !== 'function') {
      throw new AppError('This nodedesk window has no Call binding; update nodedesk', 0, 'internal');
    }
    const url = new URL(req.url);
    const body = req.body === null ? '' : await req.text();
    let answer: { status: number; body: string };
    try {
      answer = await call(req.method, url.pathname + url.search, body);
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

/** The base of request URLs in the window: any will do, only the path
 * and query reach App.Call. */
const WINDOW_BASE = 'http://nodedesk.window';

/** connect picks the transport: the window's bindings when
 * window.go.desktop.App exists, REST otherwise. */
export function connect(env: Env): Connection {
  const app = env.go?.desktop?.App ?? null;
  const loc = env.location;
  const fetch: Fetch = app
    ? bindingFetch(app.Call)
    : env.fetch ?? (() => Promise.reject(new Error('this browser cannot send requests (no fetch)')));
  const baseUrl = app ? WINDOW_BASE : loc ? `${loc.protocol}//${loc.host}` : '';
  return { transport: app ? 'window' : 'rest', client: createClient<paths>({ baseUrl, fetch }), app, env };
}
