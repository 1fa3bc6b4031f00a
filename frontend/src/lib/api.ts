// The one seam between the UI and nodedesk. Inside the Wails window the Go
// bindings (window.go.desktop.App) are called and events arrive through
// window.runtime.EventsOn("notification"); in a browser the same calls go
// to the /v2 REST API and events come from the notification websockets.
// Views never learn which: every function answers with the REST shapes and
// every failure is an AppError.

import type {
  Link, LinkCreate, LinkUpdate, LiveEvent, LiveState, Node, NodeAction, NodeDuplicate, NodeUpdate,
  Project, ProjectCreate, ProjectUpdate, Template, TemplateNodeCreate,
} from './types';

/** A failed call: the server's message (a sentence a person can act on),
 * its HTTP status (0 when nodedesk could not be reached) and error code. */
export class AppError extends Error {
  status: number;
  code: string;
  constructor(message: string, status: number, code?: string) {
    super(message);
    this.name = 'AppError';
    this.status = status;
    this.code = code ?? codeForStatus(status);
  }
}

export function codeForStatus(status: number): string {
  switch (status) {
    case 0: return 'unreachable';
    case 400: return 'invalid';
    case 404: return 'not_found';
    case 409: return 'conflict';
    default: return status >= 500 ? 'internal' : 'error';
  }
}

/** fromJSON reads a binding error, the JSON text {"code","message","status"}. */
function fromJSON(text: string): AppError | null {
  try {
    const v = JSON.parse(text) as { code?: unknown; message?: unknown; status?: unknown };
    if (v && typeof v === 'object' && typeof v.message === 'string') {
      const status = typeof v.status === 'number' ? v.status : 500;
      return new AppError(v.message, status, typeof v.code === 'string' ? v.code : undefined);
    }
  } catch {
    /* not JSON */
  }
  return null;
}

/** toAppError turns anything thrown by a transport into an AppError. A
 * binding rejects with the JSON text of {code, message, status}: as a
 * string, or (Wails 2.16 wraps it) as the message of an Error. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (typeof err === 'string') return fromJSON(err) ?? new AppError(err || 'Unknown error', 500);
  if (err instanceof Error) return fromJSON(err.message) ?? new AppError(err.message, 500);
  return new AppError(String(err), 500);
}

/** What openConsole did: opened a terminal (window), or gives the command
 * to run (browser, where no terminal can be opened). */
export type ConsoleResult =
  | { kind: 'opened' }
  | { kind: 'command'; command: string; host: string; port: number; reason?: string };

/** consoleCommand is what to run to reach a node's console. */
export function consoleCommand(node: Node): Extract<ConsoleResult, { kind: 'command' }> {
  if (node.console === null || node.console_type === null) {
    throw new AppError(`${node.name} has no console; give it a console type first`, 400);
  }
  const h = node.console_host;
  const host = !h || h === '0.0.0.0' || h === '::' ? '127.0.0.1' : h.includes(':') ? `[${h}]` : h;
  const command =
    node.console_type === 'telnet' ? `telnet ${host} ${node.console}` : `${node.console_type === 'vnc' ? 'vnc' : 'http'}://${host}:${node.console}`;
  return { kind: 'command', command, host, port: node.console };
}

type Fn = (...args: never[]) => Promise<unknown>;
/** The bound Go methods, window.go.desktop.App.<Name>. */
export interface Bindings {
  Ready(): Promise<string>;
  ListProjects(): Promise<Project[]>;
  CreateProject(body: ProjectCreate): Promise<Project>;
  UpdateProject(id: string, body: ProjectUpdate): Promise<Project>;
  DeleteProject(id: string): Promise<void>;
  OpenProject(id: string): Promise<Project>;
  CloseProject(id: string): Promise<void>;
  ListNodes(pid: string): Promise<Node[]>;
  GetNode(pid: string, nid: string): Promise<Node>;
  CreateNodeFromTemplate(pid: string, tid: string, body: TemplateNodeCreate): Promise<Node>;
  UpdateNode(pid: string, nid: string, body: NodeUpdate): Promise<Node>;
  DeleteNode(pid: string, nid: string): Promise<void>;
  DuplicateNode(pid: string, nid: string, body: NodeDuplicate): Promise<Node>;
  NodeAction(pid: string, nid: string, action: NodeAction): Promise<Node>;
  ProjectAction(pid: string, action: NodeAction): Promise<void>;
  ListLinks(pid: string): Promise<Link[]>;
  CreateLink(pid: string, body: LinkCreate): Promise<Link>;
  UpdateLink(pid: string, lid: string, body: LinkUpdate): Promise<Link>;
  DeleteLink(pid: string, lid: string): Promise<void>;
  ListTemplates(): Promise<Template[]>;
  OpenConsole(pid: string, nid: string): Promise<void>;
}

/** The part of the Wails runtime used here. */
interface WailsRuntime {
  EventsOn(name: string, cb: (msg: unknown) => void): (() => void) | void;
  EventsOff?(name: string): void;
}

interface WebSocketLike {
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
  close(): void;
}

/** Where the API finds its transports; the real one is globalThis. */
export interface Env {
  go?: { desktop?: { App?: Partial<Bindings> } };
  runtime?: WailsRuntime;
  fetch?: typeof fetch;
  WebSocket?: new (url: string) => WebSocketLike;
  location?: { protocol: string; host: string };
  setTimeout?: (fn: () => void, ms: number) => unknown;
  clearTimeout?: (t: never) => void;
}

export type Transport = 'window' | 'rest';

const PROJECT_ACTIONS = new Set(['node.created', 'node.updated', 'node.deleted', 'link.created', 'link.updated', 'link.deleted']);
const GLOBAL_ACTIONS = new Set(['project.created', 'project.updated', 'project.deleted', 'project.opened', 'project.closed']);

/** The delays between reconnection attempts, in ms. */
export function backoff(attempt: number): number {
  return Math.min(250 * 2 ** attempt, 5000);
}

const enc = encodeURIComponent;

export function createApi(env: Env) {
  const app = env.go?.desktop?.App;
  const transport: Transport = app ? 'window' : 'rest';

  async function viaBinding<T>(name: keyof Bindings, args: unknown[]): Promise<T> {
    const fn = app?.[name] as Fn | undefined;
    if (!fn) throw new AppError(`This nodedesk window has no ${name} binding; update nodedesk`, 500, 'internal');
    try {
      return (await (fn as (...a: unknown[]) => Promise<unknown>)(...args)) as T;
    } catch (err) {
      throw toAppError(err);
    }
  }

  async function viaRest<T>(method: string, path: string, body?: unknown): Promise<T> {
    const f = env.fetch;
    if (!f) throw new AppError('This browser cannot send requests (no fetch)', 0);
    let res: Response;
    try {
      res = await f('/v2' + path, {
        method,
        headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      throw new AppError(`Cannot reach nodedesk (${why}). Check that it is still running, then try again.`, 0);
    }
    if (res.status === 204) return undefined as T;
    const text = await res.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = undefined;
    }
    if (!res.ok) {
      const e = (data ?? {}) as { message?: unknown; status?: unknown };
      const message = typeof e.message === 'string' ? e.message : `nodedesk answered ${res.status} ${res.statusText}`.trim();
      throw new AppError(message, typeof e.status === 'number' ? e.status : res.status);
    }
    return data as T;
  }

  /** call picks the transport: the binding `name` with `args`, or REST. */
  function call<T>(name: keyof Bindings, args: unknown[], method: string, path: string, body?: unknown): Promise<T> {
    return transport === 'window' ? viaBinding<T>(name, args) : viaRest<T>(method, path, body);
  }

  const P = (pid: string) => `/projects/${enc(pid)}`;
  const N = (pid: string, nid: string) => `${P(pid)}/nodes/${enc(nid)}`;

  function subscribeWindow(pid: string | null, handler: (e: LiveEvent) => void, onState?: (s: LiveState) => void): () => void {
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

  function subscribeRest(pid: string | null, handler: (e: LiveEvent) => void, onState?: (s: LiveState) => void): () => void {
    const WS = env.WebSocket;
    if (!WS) return () => {};
    const loc = env.location ?? { protocol: 'http:', host: '127.0.0.1:3080' };
    const path = pid === null ? '/v2/notifications/ws' : `/v2${P(pid)}/notifications/ws`;
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

  return {
    transport,
    /** Tells the window the page is up (the window only). */
    ready: (): Promise<string> => (transport === 'window' ? viaBinding<string>('Ready', []) : Promise.resolve('browser')),

    listProjects: () => call<Project[]>('ListProjects', [], 'GET', '/projects'),
    createProject: (body: ProjectCreate) => call<Project>('CreateProject', [body], 'POST', '/projects', body),
    updateProject: (id: string, body: ProjectUpdate) => call<Project>('UpdateProject', [id, body], 'PUT', P(id), body),
    deleteProject: (id: string) => call<void>('DeleteProject', [id], 'DELETE', P(id)),
    openProject: (id: string) => call<Project>('OpenProject', [id], 'POST', `${P(id)}/open`, {}),
    closeProject: (id: string) => call<void>('CloseProject', [id], 'POST', `${P(id)}/close`, {}),

    listNodes: (pid: string) => call<Node[]>('ListNodes', [pid], 'GET', `${P(pid)}/nodes`),
    getNode: (pid: string, nid: string) => call<Node>('GetNode', [pid, nid], 'GET', N(pid, nid)),
    createNodeFromTemplate: (pid: string, tid: string, body: TemplateNodeCreate) =>
      call<Node>('CreateNodeFromTemplate', [pid, tid, body], 'POST', `${P(pid)}/templates/${enc(tid)}`, body),
    updateNode: (pid: string, nid: string, body: NodeUpdate) => call<Node>('UpdateNode', [pid, nid, body], 'PUT', N(pid, nid), body),
    deleteNode: (pid: string, nid: string) => call<void>('DeleteNode', [pid, nid], 'DELETE', N(pid, nid)),
    duplicateNode: (pid: string, nid: string, body: NodeDuplicate) =>
      call<Node>('DuplicateNode', [pid, nid, body], 'POST', `${N(pid, nid)}/duplicate`, body),
    nodeAction: (pid: string, nid: string, action: NodeAction) =>
      call<Node>('NodeAction', [pid, nid, action], 'POST', `${N(pid, nid)}/${action}`, {}),
    projectAction: (pid: string, action: NodeAction) =>
      call<void>('ProjectAction', [pid, action], 'POST', `${P(pid)}/nodes/${action}`, {}),

    listLinks: (pid: string) => call<Link[]>('ListLinks', [pid], 'GET', `${P(pid)}/links`),
    createLink: (pid: string, body: LinkCreate) => call<Link>('CreateLink', [pid, body], 'POST', `${P(pid)}/links`, body),
    updateLink: (pid: string, lid: string, body: LinkUpdate) =>
      call<Link>('UpdateLink', [pid, lid, body], 'PUT', `${P(pid)}/links/${enc(lid)}`, body),
    deleteLink: (pid: string, lid: string) => call<void>('DeleteLink', [pid, lid], 'DELETE', `${P(pid)}/links/${enc(lid)}`),

    listTemplates: () => call<Template[]>('ListTemplates', [], 'GET', '/templates'),

    /** Opens a terminal on the node's console (window), or answers the
     * telnet command to run (browser). */
    async openConsole(pid: string, nid: string): Promise<ConsoleResult> {
      if (transport === 'rest') return consoleCommand(await viaRest<Node>('GET', N(pid, nid)));
      try {
        await viaBinding<void>('OpenConsole', [pid, nid]);
        return { kind: 'opened' };
      } catch (err) {
        // No terminal could be started (409): give the command instead.
        if (!(err instanceof AppError) || err.status !== 409) throw err;
        return { ...consoleCommand(await viaBinding<Node>('GetNode', [pid, nid])), reason: err.message };
      }
    },

    /** Follows live events: a project's node.* and link.* events, or with
     * pid null the project.* events. 'resync' means events may have been
     * missed. Returns the function that stops following. */
    subscribe(pid: string | null, handler: (e: LiveEvent) => void, onState?: (s: LiveState) => void): () => void {
      return transport === 'window' ? subscribeWindow(pid, handler, onState) : subscribeRest(pid, handler, onState);
    },
  };
}

export type Api = ReturnType<typeof createApi>;

let current: Api | null = null;

/** The API of this page, its transport picked once, on first use. */
export function api(): Api {
  if (!current) {
    const g = globalThis as unknown as Env;
    current = createApi({
      go: g.go,
      runtime: g.runtime,
      fetch: typeof fetch === 'function' ? fetch.bind(globalThis) : undefined,
      WebSocket: g.WebSocket,
      location: g.location,
    });
  }
  return current;
}

export const transport = (): Transport => api().transport;
export const ready = () => api().ready();
export const listProjects = () => api().listProjects();
export const createProject = (body: ProjectCreate) => api().createProject(body);
export const updateProject = (id: string, body: ProjectUpdate) => api().updateProject(id, body);
export const deleteProject = (id: string) => api().deleteProject(id);
export const openProject = (id: string) => api().openProject(id);
export const closeProject = (id: string) => api().closeProject(id);
export const listNodes = (pid: string) => api().listNodes(pid);
export const getNode = (pid: string, nid: string) => api().getNode(pid, nid);
export const createNodeFromTemplate = (pid: string, tid: string, body: TemplateNodeCreate) => api().createNodeFromTemplate(pid, tid, body);
export const updateNode = (pid: string, nid: string, body: NodeUpdate) => api().updateNode(pid, nid, body);
export const deleteNode = (pid: string, nid: string) => api().deleteNode(pid, nid);
export const duplicateNode = (pid: string, nid: string, body: NodeDuplicate) => api().duplicateNode(pid, nid, body);
export const nodeAction = (pid: string, nid: string, action: NodeAction) => api().nodeAction(pid, nid, action);
export const projectAction = (pid: string, action: NodeAction) => api().projectAction(pid, action);
export const listLinks = (pid: string) => api().listLinks(pid);
export const createLink = (pid: string, body: LinkCreate) => api().createLink(pid, body);
export const updateLink = (pid: string, lid: string, body: LinkUpdate) => api().updateLink(pid, lid, body);
export const deleteLink = (pid: string, lid: string) => api().deleteLink(pid, lid);
export const listTemplates = () => api().listTemplates();
export const openConsole = (pid: string, nid: string) => api().openConsole(pid, nid);
export const subscribe = (pid: string | null, handler: (e: LiveEvent) => void, onState?: (s: LiveState) => void) =>
  api().subscribe(pid, handler, onState);
