// Live events: in the window, the "notification" event the Go side emits
// for every committed change; in a browser, the notification websockets.

import type { Connection, Env, WebSocketLike } from './transport';
import type { LiveEvent, LiveState } from './types';

const PROJECT_ACTIONS = new Set([
  'node.created', 'node.updated', 'node.deleted', 'link.created', 'link.updated', 'link.deleted',
  'drawing.created', 'drawing.updated', 'drawing.deleted', 'history.updated',
  'check.run.updated', 'log.error', 'log.warning', 'log.info',
]);
const GLOBAL_ACTIONS = new Set([
  'project.created', 'project.updated', 'project.deleted', 'project.opened', 'project.closed',
  'compute.created', 'compute.updated', 'compute.deleted',
  'template.created', 'template.updated', 'template.deleted',
]);

/** The delays between reconnection attempts, in ms. */
export function backoff(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 5000);
}

type Handler = (e: LiveEvent) => void;
type OnState = (s: LiveState) => void;

function subscribeWindow(env: Env, pid: string | null, handler: Handler, onState?: OnState): () => void {
  const rt = env.runtime;
  if (!rt) return () => {};
  const off = rt.EventsOn('notification', (raw) => {
    const msg = raw as { action?: unknown; project_id?: unknown; event?: unknown } | null;
    if (!msg || typeof msg.action !== 'string') return;
    if (msg.action === 'resync') return handler({ action: 'resync' });
    if (pid === null ? !GLOBAL_ACTIONS.has(msg.action) : !PROJECT_ACTIONS.has(msg.action) || msg.project_id !== pid) return;
    handler({ action: msg.action, event: msg.event } as LiveEvent);
  });
  onState?.('live');
  return () => {
    if (typeof off === 'function') off();
  };
}

function subscribeRest(env: Env, pid: string | null, handler: Handler, onState?: OnState): () => void {
  const WS = env.WebSocket;
  if (!WS) return () => {};
  const loc = env.location ?? { protocol: 'http:', host: '127.0.0.1:3080' };
  // The controller stream says it is nodedesk's page (viewer=true): while
  // it is open no auto_close project is closed, whichever one this page
  // shows (decision 0069). The window is a viewer on the Go side.
  const path = pid === null ? '/v2/notifications/ws?viewer=true' : `/v2/projects/${encodeURIComponent(pid)}/notifications/ws`;
  const url = `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}${path}`;
  const allowed = pid === null ? GLOBAL_ACTIONS : PROJECT_ACTIONS;
  const later = env.setTimeout ?? ((fn: () => void, ms: number) => setTimeout(fn, ms));
  const cancel = env.clearTimeout ?? ((t: never) => clearTimeout(t));
  let ws: WebSocketLike | null = null;
  let stopped = false;
  let attempt = 0;
  let opened = false;
  let timer: unknown = null;

  const connect = () => {
    timer = null;
    const sock = new WS(url);
    ws = sock;
    sock.onopen = () => {
      attempt = 0;
      onState?.('live');
      if (opened) handler({ action: 'resync' }); // events may have been missed while away
      opened = true;
    };
    sock.onmessage = (m) => {
      let msg: { action?: unknown; event?: unknown };
      try {
        msg = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (typeof msg?.action === 'string' && allowed.has(msg.action)) {
        handler({ action: msg.action, event: msg.event } as LiveEvent);
      }
    };
    sock.onerror = () => sock.close();
    sock.onclose = () => {
      if (stopped || ws !== sock) return;
      onState?.('reconnecting');
      timer = later(connect, backoff(attempt++));
    };
  };
  connect();
  return () => {
    stopped = true;
    if (timer !== null) cancel(timer as never);
    ws?.close();
  };
}

/** subscribe follows live events: a project's node.*, link.*, drawing.*, history.updated, check.run.updated and log.* events, or
 * with pid null the project.*, compute.* and template.* events. 'resync' means events may have been
 * missed. Returns the function that stops following. */
export function subscribe(c: Connection, pid: string | null, handler: Handler, onState?: OnState): () => void {
  return c.transport === 'window' ? subscribeWindow(c.env, pid, handler, onState) : subscribeRest(c.env, pid, handler, onState);
}
