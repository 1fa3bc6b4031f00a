// The one seam between the UI and nodedesk: each operation the page uses,
// once, as a thin typed wrapper over the openapi-fetch client of the
// contract's paths (transport.ts). Inside the Wails window the client's
// requests go through the one binding App.Call and events arrive through
// the runtime's "notification" event; in a browser the requests go to the
// /v2 REST API and events come from the notification websockets. Views
// never learn which: every function answers with the contract's shapes and
// every failure is an AppError carrying the server's code and field.

import { dialHost } from './address';
import { openConsoleLink, type ConsoleHandlers, type ConsoleLink } from './consolelink';
import { AppError, errorFromAnswer, toAppError, unreachable } from './errors';
import { currentGesture } from './gesture';
import { subscribe as follow } from './live';
import { exportQuery, newProjectId, type ExportOptions } from './projectfile';
import { ORIGIN_HEADER, connect, type Bindings, type Connection, type Env, type Transport } from './transport';
import type { Client } from 'openapi-fetch';
import type { paths } from './openapi';
import { openVncLink, type VncHandlers, type VncLink } from './vnclink';
import type {
  ApplianceFile, ApplianceImport, ComputeCreate, ComputeUpdate,
  Drawing, DrawingCreate, DrawingUpdate, Link, LinkCaptureStart, LinkCreate, LinkUpdate, LiveEvent, LiveState, Node, NodeAction, NodeCreate, NodeDuplicate, NodeUpdate, ProjectCreate,
  HistoryEntry, CheckFile, CheckRunRequest,
  Project, ProjectDuplicate, ProjectUpdate, Image, Template, TemplateCreate, TemplateNodeCreate, TemplateUpdate,
} from './types';

export { AppError, toAppError } from './errors';
export { backoff } from './live';
export type { Env, Transport } from './transport';

let current: Connection | null = null;

/** useEnv connects the page through env's transports (tests give fakes);
 * without it the page's own (globalThis) is used, picked on first use. */
export function useEnv(env: Env): void {
  current = connect(env);
}

function conn(): Connection {
  if (!current) {
    const g = globalThis as unknown as Env & { fetch?: typeof fetch };
    current = connect({
      go: g.go,
      runtime: g.runtime,
      fetch: typeof g.fetch === 'function' ? (req) => g.fetch!(req) : undefined,
      WebSocket: g.WebSocket,
      XMLHttpRequest: g.XMLHttpRequest,
      location: g.location,
    });
  }
  return current;
}

/** client is the API client for a request made now: a gesture's when one
 * is under way (gesture.ts; read here, synchronously, as each wrapper is
 * called). */
const client = () => {
  const c = conn();
  const g = currentGesture();
  return g === null ? c.client : c.gestureClient(g);
};

/** What an openapi-fetch call resolves to. */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** answer is the data of a successful answer; an error answer is the
 * AppError its body describes, no answer an 'unreachable' one. */
async function answer<T>(call: Promise<Answer<T>>): Promise<T> {
  let r: Answer<T>;
  try {
    r = await call;
  } catch (err) {
    throw err instanceof AppError ? err : unreachable(err);
  }
  if (!r.response.ok) throw errorFromAnswer(r.response.status, r.response.statusText, r.error);
  return r.data as T;
}

/** call makes one request of the contract's client and answers its data
 * (a request made in a gesture is the gesture's). It is for the routes
 * of one node type only, and only that type's entry
 * (src/nodekinds/<type>/index.ts) may use it: every other operation is a
 * function here. */
export const call = <T>(request: (c: Client<paths>) => Promise<Answer<T>>): Promise<T> => answer(request(client()));

/** done is answer for the operations that answer no body. */
async function done(call: Promise<Answer<unknown>>): Promise<void> {
  await answer(call);
}

/** A node's free-form properties seen as its type's component (types.ts). */
const asNode = (n: Omit<Node, 'properties'> & { properties: Record<string, unknown> }): Node => n as Node;

const inProject = (project_id: string) => ({ params: { path: { project_id } } });
const onNode = (project_id: string, node_id: string) => ({ params: { path: { project_id, node_id } } });
const onLink = (project_id: string, link_id: string) => ({ params: { path: { project_id, link_id } } });

/** Which door this page uses. */
export const transport = (): Transport => conn().transport;

/** bound calls one of the window's own bindings: a binding the window
 * lacks (an older nodedesk) and a binding's rejection are AppErrors. */
async function bound<K extends keyof Bindings>(
  app: Partial<Bindings>, name: K, ...args: Parameters<Bindings[K]>
): Promise<Awaited<ReturnType<Bindings[K]>>> {
  const f = app[name] as ((...a: Parameters<Bindings[K]>) => ReturnType<Bindings[K]>) | undefined;
  if (typeof f !== 'function') throw new AppError(`This nodedesk window has no ${name} binding; update nodedesk`, 0, 'internal');
  try {
    return await f(...args);
  } catch (err) {
    throw toAppError(err);
  }
}

/** Tells the window the page is up (the window only). */
export async function ready(): Promise<string> {
  const app = conn().app;
  return app ? bound(app, 'Ready') : 'browser';
}

export const listProjects = () => answer(client().GET('/v2/projects'));
/** getLeftovers is what this nodedesk found at start of a previous one
 * that did not shut down; dismissLeftovers forgets it (read by the user). */
export const getLeftovers = () => answer(client().GET('/v2/leftovers'));
export const dismissLeftovers = () => done(client().DELETE('/v2/leftovers'));
export const createProject = (body: ProjectCreate) => answer(client().POST('/v2/projects', { body }));
export const updateProject = (pid: string, body: ProjectUpdate) =>
  answer(client().PUT('/v2/projects/{project_id}', { ...inProject(pid), body }));
export const deleteProject = (pid: string) => done(client().DELETE('/v2/projects/{project_id}', inProject(pid)));
export const openProject = (pid: string) => answer(client().POST('/v2/projects/{project_id}/open', inProject(pid)));
export const closeProject = (pid: string) => done(client().POST('/v2/projects/{project_id}/close', inProject(pid)));
/** duplicateProject copies a project ("Save as"); the copy is closed. */
export const duplicateProject = (pid: string, body: ProjectDuplicate) =>
  answer(client().POST('/v2/projects/{project_id}/duplicate', { ...inProject(pid), body }));

/** The window's bindings, for what only the window does. */
function windowApp(what: string): Partial<Bindings> {
  const app = conn().app;
  if (!app) throw new AppError(`Only the nodedesk window can ${what}`, 0, 'internal');
  return app;
}

/** importProject uploads a project file — a portable project (zip) or a
 * .gns3 project file (JSON) — as a new project named name, as GNS3's
 * import does (a browser: the window imports by path). */
export async function importProject(file: Blob, name: string): Promise<Project> {
  if (conn().app) throw new AppError('The window opens project files by their path: use Open, or drop the file on the window', 0, 'internal');
  return answer(client().POST('/v2/projects/{project_id}/import', {
    params: { path: { project_id: newProjectId() }, query: { name } },
    body: file as unknown as string, // the contract's binary body: the file's bytes, sent as they are
    bodySerializer: (b: unknown) => b,
    headers: { 'Content-Type': 'application/octet-stream' },
  }));
}

/** openProjectFile asks for a project file in the window's native Open
 * dialog and brings it in; it answers the project's id, or null when the
 * user cancelled (the window only). */
export const openProjectFile = async (): Promise<string | null> =>
  (await bound(windowApp('show an Open dialog'), 'OpenProjectFile')) || null;

/** importProjectPath brings in the project file at path (a file dropped
 * on the window) and answers the project's id (the window only). */
export const importProjectPath = (path: string): Promise<string> => bound(windowApp('open a file by its path'), 'ImportProjectFile', path);

/** droppedPaths follows the files dropped on the window, as their paths
 * (Wails' wails:file-drop event); in a browser a drop is the page's own
 * event, and this follows nothing. Returns the function that stops. */
export function droppedPaths(handler: (paths: string[]) => void): () => void {
  const c = conn();
  const rt = c.app ? c.env.runtime : undefined;
  if (!rt) return () => {};
  const off = rt.EventsOn('wails:file-drop', (_x, _y, paths) => {
    if (Array.isArray(paths)) handler(paths.filter((p): p is string => typeof p === 'string'));
  });
  return () => {
    if (typeof off === 'function') off();
  };
}

/** windowCloses hands the window's closes (its close button, the
 * system's quit) to handler, which calls quitWindow to go on; in a browser
 * it follows nothing and answers null. Returns the function that stops. */
export function windowCloses(handler: () => void): (() => void) | null {
  const c = conn();
  const rt = c.app ? c.env.runtime : undefined;
  if (!rt || !c.app?.AskBeforeClose) return null;
  const off = rt.EventsOn('close-requested', () => handler());
  void c.app.AskBeforeClose();
  return () => {
    if (typeof off === 'function') off();
  };
}

/** quitWindow closes the window, and so ends nodedesk (the window only). */
export const quitWindow = (): Promise<void> => bound(windowApp('quit'), 'Quit');

/** What exportProject did: the archive to download (a browser), the file
 * the window wrote it to, or nothing (the Save dialog was cancelled). */
export type ExportResult = { kind: 'download'; archive: Blob } | { kind: 'saved'; path: string } | { kind: 'cancelled' };

/** exportProject exports a project as a portable project (GET …/export
 * with GNS3's options): in a browser its bytes, in the window a file the
 * user picks in the native Save dialog. */
export async function exportProject(pid: string, o: ExportOptions): Promise<ExportResult> {
  const app = conn().app;
  if (app) {
    const path = await bound(app, 'ExportProject', pid, o);
    return path ? { kind: 'saved', path } : { kind: 'cancelled' };
  }
  const archive = await answer(client().GET('/v2/projects/{project_id}/export', {
    params: { path: { project_id: pid }, query: exportQuery(o) },
    parseAs: 'blob',
  }));
  return { kind: 'download', archive };
}

const onSnapshot = (project_id: string, snapshot_id: string) => ({ params: { path: { project_id, snapshot_id } } });
/** listSnapshots lists a project's snapshots, oldest first. */
export const listSnapshots = (pid: string) => answer(client().GET('/v2/projects/{project_id}/snapshots', inProject(pid)));
export const createSnapshot = (pid: string, name: string) =>
  answer(client().POST('/v2/projects/{project_id}/snapshots', { ...inProject(pid), body: { name } }));
/** restoreSnapshot replaces the project's topology with the snapshot's
 * (refused while nodes run); the canvas follows through the events. */
export const restoreSnapshot = (pid: string, sid: string) =>
  answer(client().POST('/v2/projects/{project_id}/snapshots/{snapshot_id}/restore', onSnapshot(pid, sid)));
export const deleteSnapshot = (pid: string, sid: string) =>
  done(client().DELETE('/v2/projects/{project_id}/snapshots/{snapshot_id}', onSnapshot(pid, sid)));

export const listNodes = async (pid: string) =>
  (await answer(client().GET('/v2/projects/{project_id}/nodes', inProject(pid)))).map(asNode);
/** listNodeImages: the images node nid names, each found or missing (a
 * missing one is told in its panel before any start). */
export const listNodeImages = (pid: string, nid: string) => answer(client().GET('/v2/projects/{project_id}/nodes/{node_id}/images', onNode(pid, nid)));
export const getNode = async (pid: string, nid: string) =>
  asNode(await answer(client().GET('/v2/projects/{project_id}/nodes/{node_id}', onNode(pid, nid))));
export const createNodeFromTemplate = async (pid: string, tid: string, body: TemplateNodeCreate) =>
  asNode(await answer(client().POST('/v2/projects/{project_id}/templates/{template_id}', {
    params: { path: { project_id: pid, template_id: tid } }, body,
  })));
/** createNode makes a node from a node's own settings (a pasted copy):
 * the server gives it a free name from the one asked and a free console. */
export const createNode = async (pid: string, body: NodeCreate) =>
  asNode(await answer(client().POST('/v2/projects/{project_id}/nodes', { ...inProject(pid), body })));
export const updateNode = async (pid: string, nid: string, body: NodeUpdate) =>
  asNode(await answer(client().PUT('/v2/projects/{project_id}/nodes/{node_id}', { ...onNode(pid, nid), body })));
export const deleteNode = (pid: string, nid: string) =>
  done(client().DELETE('/v2/projects/{project_id}/nodes/{node_id}', onNode(pid, nid)));
export const duplicateNode = async (pid: string, nid: string, body: NodeDuplicate) =>
  asNode(await answer(client().POST('/v2/projects/{project_id}/nodes/{node_id}/duplicate', { ...onNode(pid, nid), body })));
/** nodeAction starts, stops, suspends or reloads one node. */
export const nodeAction = async (pid: string, nid: string, action: NodeAction) =>
  asNode(await answer(client().POST(`/v2/projects/{project_id}/nodes/{node_id}/${action}`, { ...onNode(pid, nid), body: {} })));
const onNodeFile = (project_id: string, node_id: string, path: string) => ({ params: { path: { project_id, node_id, path } } });
/** readNodeFile reads a text file of a node's folder (a router's startup
 * config: until its first start, the one it will start with). */
export const readNodeFile = (pid: string, nid: string, path: string): Promise<string> =>
  answer(client().GET('/v2/projects/{project_id}/nodes/{node_id}/files/{path}', { ...onNodeFile(pid, nid, path), parseAs: 'text' })) as Promise<string>;
/** writeNodeFile writes a text file of a node's folder, as it is. */
export const writeNodeFile = (pid: string, nid: string, path: string, text: string) =>
  done(client().POST('/v2/projects/{project_id}/nodes/{node_id}/files/{path}', {
    ...onNodeFile(pid, nid, path),
    body: text,
    bodySerializer: (b: unknown) => b,
    headers: { 'Content-Type': 'application/octet-stream' },
  }));
/** projectAction starts, stops, suspends or reloads every node of a project. */
export const projectAction = (pid: string, action: NodeAction) =>
  done(client().POST(`/v2/projects/{project_id}/nodes/${action}`, { ...inProject(pid), body: {} }));

export const listLinks = (pid: string) => answer(client().GET('/v2/projects/{project_id}/links', inProject(pid)));
export const createLink = (pid: string, body: LinkCreate) =>
  answer(client().POST('/v2/projects/{project_id}/links', { ...inProject(pid), body }));
export const updateLink = (pid: string, lid: string, body: LinkUpdate) =>
  answer(client().PUT('/v2/projects/{project_id}/links/{link_id}', { ...onLink(pid, lid), body }));
export const deleteLink = (pid: string, lid: string) =>
  done(client().DELETE('/v2/projects/{project_id}/links/{link_id}', onLink(pid, lid)));

/** listLinkFilters lists the filters a link can take, as the server describes them. */
export const listLinkFilters = (pid: string, lid: string) =>
  answer(client().GET('/v2/projects/{project_id}/links/{link_id}/available_filters', onLink(pid, lid)));
/** startCapture starts capturing a link's frames; an empty body takes the server's file name and format. */
export const startCapture = (pid: string, lid: string, body: LinkCaptureStart = {}) =>
  answer(client().POST('/v2/projects/{project_id}/links/{link_id}/start_capture', { ...onLink(pid, lid), body }));
export const stopCapture = (pid: string, lid: string) =>
  answer(client().POST('/v2/projects/{project_id}/links/{link_id}/stop_capture', onLink(pid, lid)));

/** pcapUrl is where a browser reads a link's running capture as a pcap
 * stream (GET …/pcap: the file so far, then as it grows, until the capture
 * stops); null in the window, whose page does not reach the REST server. */
export function pcapUrl(pid: string, lid: string): string | null {
  const c = conn();
  if (c.transport === 'window') return null;
  const base = c.env.location ? `${c.env.location.protocol}//${c.env.location.host}` : '';
  return `${base}/v2/projects/${encodeURIComponent(pid)}/links/${encodeURIComponent(lid)}/pcap`;
}

/** What openCapture did: opened Wireshark on the capture (window), or
 * gives the capture file to open, and in a browser the pcap stream's URL;
 * reason says why Wireshark was not opened, when it was tried. */
export type CaptureResult =
  | { kind: 'opened'; fileName: string; path: string }
  | { kind: 'file'; fileName: string; path: string; url: string | null; reason?: string };

function notCapturing(): AppError {
  return new AppError('This link is not capturing; start a capture first', 0, 'conflict');
}

/** openCapture opens a link's running capture in Wireshark, fed by the
 * capture stream (window, when Wireshark is installed), or answers the
 * file to open instead (a browser, or a window without Wireshark). */
export async function openCapture(pid: string, lid: string): Promise<CaptureResult> {
  const app = conn().app;
  if (!app) {
    const l: Link = await answer(client().GET('/v2/projects/{project_id}/links/{link_id}', onLink(pid, lid)));
    if (!l.capturing || !l.capture_file_path) throw notCapturing();
    return { kind: 'file', fileName: l.capture_file_name ?? '', path: l.capture_file_path, url: pcapUrl(pid, lid) };
  }
  const v = await bound(app, 'OpenCapture', pid, lid);
  return v.opened
    ? { kind: 'opened', fileName: v.file_name, path: v.path }
    : { kind: 'file', fileName: v.file_name, path: v.path, url: null, reason: v.reason || undefined };
}

const onDrawing = (project_id: string, drawing_id: string) => ({ params: { path: { project_id, drawing_id } } });
export const listDrawings = (pid: string) => answer(client().GET('/v2/projects/{project_id}/drawings', inProject(pid)));
export const createDrawing = (pid: string, body: DrawingCreate): Promise<Drawing> =>
  answer(client().POST('/v2/projects/{project_id}/drawings', { ...inProject(pid), body }));
/** updateDrawing changes a drawing (the server answers 201, as GNS3). */
export const updateDrawing = (pid: string, did: string, body: DrawingUpdate): Promise<Drawing> =>
  answer(client().PUT('/v2/projects/{project_id}/drawings/{drawing_id}', { ...onDrawing(pid, did), body }));
export const deleteDrawing = (pid: string, did: string) =>
  done(client().DELETE('/v2/projects/{project_id}/drawings/{drawing_id}', onDrawing(pid, did)));

/** checks is a project's checks file (an empty one when it has none). */
export const checks = (pid: string) => answer(client().GET('/v2/projects/{project_id}/checks', inProject(pid)));
/** putChecks replaces a project's checks file; a 400 names the check and field at fault. */
export const putChecks = (pid: string, body: CheckFile) =>
  answer(client().PUT('/v2/projects/{project_id}/checks', { ...inProject(pid), body }));
/** runChecks starts a run (201 at once); check.run.updated follows it. */
export const runChecks = (pid: string, body: CheckRunRequest = {}) =>
  answer(client().POST('/v2/projects/{project_id}/checks/run', { ...inProject(pid), body }));
/** lastCheckRun is a project's newest run (404: none since nodedesk started). */
export const lastCheckRun = (pid: string) => answer(client().GET('/v2/projects/{project_id}/checks/run', inProject(pid)));
/** lint is what will not work in a project, found from the project alone. */
export const lint = (pid: string) => answer(client().GET('/v2/projects/{project_id}/lint', inProject(pid)));
/** wireMap is, per link, the addresses seen there, and the wire's faults. */
export const wireMap = (pid: string) => answer(client().GET('/v2/projects/{project_id}/wiremap', inProject(pid)));

/** projectFileUrl is where a browser reads a project file (a check's
 * capture slice, under project-files/captures); null in the window, whose
 * page does not reach the REST server. */
export function projectFileUrl(pid: string, path: string): string | null {
  const c = conn();
  if (c.transport === 'window') return null;
  const base = c.env.location ? `${c.env.location.protocol}//${c.env.location.host}` : '';
  return `${base}/v2/projects/${encodeURIComponent(pid)}/files/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** history is a project's undo and redo stacks, newest first. */
export const history = (pid: string) => answer(client().GET('/v2/projects/{project_id}/history', inProject(pid)));
/** undo takes back the project's last change (409: nothing to undo, or
 * what it needs back is taken; the message says what). */
export const undo = (pid: string): Promise<HistoryEntry> => answer(client().POST('/v2/projects/{project_id}/undo', inProject(pid)));
/** redo makes the last undone change again. */
export const redo = (pid: string): Promise<HistoryEntry> => answer(client().POST('/v2/projects/{project_id}/redo', inProject(pid)));

const onCompute = (compute_id: string) => ({ params: { path: { compute_id } } });
/** listComputes lists the computes: "local" and the remote ones. */
export const listComputes = () => answer(client().GET('/v2/computes'));
/** createCompute adds a remote compute (400 by field, 409 for a name taken). */
export const createCompute = (body: ComputeCreate) => answer(client().POST('/v2/computes', { body }));
/** updateCompute changes a remote compute; a new address reconnects it. */
export const updateCompute = (cid: string, body: ComputeUpdate) =>
  answer(client().PUT('/v2/computes/{compute_id}', { ...onCompute(cid), body }));
/** deleteCompute removes a remote compute (409 while nodes live there, as the server says). */
export const deleteCompute = (cid: string) => done(client().DELETE('/v2/computes/{compute_id}', onCompute(cid)));

export const listTemplates = () => answer(client().GET('/v2/templates'));
/** createTemplate adds a user template (400 by field, as the server says). */
export const createTemplate = (body: TemplateCreate): Promise<Template> => answer(client().POST('/v2/templates', { body }));
const onTemplate = (tid: string) => ({ params: { path: { template_id: tid } } });
/** updateTemplate changes a user template: the keys given replace its own
 * (400 by field; 409 for a builtin, as the server says). */
export const updateTemplate = (tid: string, body: TemplateUpdate): Promise<Template> =>
  answer(client().PUT('/v2/templates/{template_id}', { ...onTemplate(tid), body }));
/** deleteTemplate removes a user template (409 for a builtin); the nodes
 * made from it keep their settings. */
export const deleteTemplate = (tid: string) => done(client().DELETE('/v2/templates/{template_id}', onTemplate(tid)));
/** duplicateTemplate copies a user template under a new id, same name. */
export const duplicateTemplate = (tid: string): Promise<Template> =>
  answer(client().POST('/v2/templates/{template_id}/duplicate', onTemplate(tid)));
/** templateUsage counts the nodes made from a template and their projects. */
export const templateUsage = (tid: string) => answer(client().GET('/v2/templates/{template_id}/usage', onTemplate(tid)));

/** An emulator's name in the images routes, as the contract types it. */
export type Emulator = paths['/v2/computes/{compute_id}/{emulator}/images']['get']['parameters']['path']['emulator'];

/** listImages lists an emulator's images on a compute: for local, the
 * images folders of this nodedesk (and GNS3's own, when they exist). */
export const listImages = (emulator: Emulator, compute = 'local'): Promise<Image[]> =>
  answer(client().GET('/v2/computes/{compute_id}/{emulator}/images', { params: { path: { compute_id: compute, emulator } } })) as Promise<Image[]>;

/** openExternal opens url (a node's web console) in the user's browser
 * when the page is the window's, whose own links would open inside it,
 * and says true; in a browser it says false and the link opens as links
 * do, in a new tab. */
export function openExternal(url: string): boolean {
  const c = conn();
  if (c.transport !== 'window') return false;
  const rt = c.env.runtime;
  if (typeof rt?.BrowserOpenURL !== 'function') throw new AppError(`This nodedesk window cannot open a browser; open ${url} in yours`, 0, 'internal');
  rt.BrowserOpenURL(url);
  return true;
}

export type { ApplianceImport, MissingImage } from './types';

/** importAppliance makes templates from a GNS3 appliance file (.gns3a,
 * its JSON as read): one per version whose images are all in the images
 * folders (matched by md5, else by name); the images the other versions
 * lack come back in missing (POST /v2/appliances/import). */
export const importAppliance = (appliance: ApplianceFile): Promise<ApplianceImport> =>
  answer(client().POST('/v2/appliances/import', { body: appliance }));

/** An upload under way: its end, and how to cancel it. */
export interface Upload {
  done: Promise<void>;
  abort(): void;
}

/** uploadImage sends a file to an emulator's images folder on this
 * nodedesk (POST …/computes/local/{emulator}/images/{filename}, the raw
 * file as the body), telling progress(sent, total) as it goes. A browser
 * only: the window's requests carry text, not files. */
export function uploadImage(emulator: string, file: Blob, filename: string, progress?: (sent: number, total: number) => void): Upload {
  const c = conn();
  const fail = (err: AppError): Upload => ({ done: Promise.reject(err), abort: () => {} });
  if (c.transport === 'window') {
    return fail(new AppError('The window cannot upload images yet: open nodedesk in a browser to upload, or copy the file into the images folder and pick it from the list', 0, 'internal'));
  }
  const Xhr = c.env.XMLHttpRequest;
  if (!Xhr) return fail(new AppError('This browser cannot upload files (no XMLHttpRequest)', 0, 'internal'));
  const base = c.env.location ? `${c.env.location.protocol}//${c.env.location.host}` : '';
  const xhr = new Xhr();
  const done = new Promise<void>((resolve, reject) => {
    xhr.open('POST', `${base}/v2/computes/local/${encodeURIComponent(emulator)}/images/${encodeURIComponent(filename)}`);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    xhr.setRequestHeader(ORIGIN_HEADER, 'browser');
    xhr.upload.onprogress = (e) => progress?.(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        progress?.(file.size, file.size);
        resolve();
        return;
      }
      let body: unknown = xhr.responseText;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        // not JSON: errorFromAnswer says the status
      }
      reject(errorFromAnswer(xhr.status, xhr.statusText, body));
    };
    xhr.onerror = () => reject(unreachable(new Error('the upload was cut off')));
    xhr.onabort = () => reject(new AppError(`The upload of ${filename} was cancelled`, 0, 'internal'));
    xhr.send(file);
  });
  return { done, abort: () => xhr.abort() };
}
/** listNodeTypes is what differs between node types (consoles, lifecycle). */
export const listNodeTypes = () => answer(client().GET('/v2/node_types'));

/** What openConsole did: opened a terminal (window), or gives the command
 * to run (browser, or a window that could not open one). */
export type ConsoleResult =
  | { kind: 'opened' }
  | { kind: 'command'; command: string; host: string; port: number; reason?: string };

/** consoleCommand is what to run to reach a node's console. */
export function consoleCommand(node: Node): Extract<ConsoleResult, { kind: 'command' }> {
  if (node.console === null || node.console_type === null) {
    throw new AppError(`${node.name} has no console; give it a console type first`, 0, 'invalid', 'console');
  }
  const host = dialHost(node.console_host);
  const command =
    node.console_type === 'telnet' ? `telnet ${host} ${node.console}` : `${node.console_type}://${host}:${node.console}`;
  return { kind: 'command', command, host, port: node.console };
}

/** openConsole opens a terminal on the node's console (window), or
 * answers the command to run (browser; or the window when it could not
 * open one, which it says with the code 'conflict'). */
export async function openConsole(pid: string, nid: string): Promise<ConsoleResult> {
  const app = conn().app;
  if (!app) return consoleCommand(await getNode(pid, nid));
  try {
    await bound(app, 'OpenConsole', pid, nid);
    return { kind: 'opened' };
  } catch (caught) {
    const err = toAppError(caught);
    if (err.code !== 'conflict') throw err;
    return { ...consoleCommand(await getNode(pid, nid)), reason: err.message };
  }
}

/** consoleLink connects to a node's console: the API's websocket in a
 * browser, the door's console session in the window. */
export const consoleLink = (pid: string, nid: string, h: ConsoleHandlers): Promise<ConsoleLink> => openConsoleLink(conn(), pid, nid, h);

/** auxLink connects to a node's aux console (a shell in a container),
 * through the same door as consoleLink. */
export const auxLink = (pid: string, nid: string, h: ConsoleHandlers): Promise<ConsoleLink> => openConsoleLink(conn(), pid, nid, h, 'aux');

/** vncLink shows a node's VNC console (its screen) in target, through the
 * API's VNC websocket (a browser only). */
export const vncLink = (pid: string, nid: string, target: HTMLElement, h: VncHandlers): Promise<VncLink> => openVncLink(conn(), pid, nid, target, h);

/** subscribe follows live events: a project's node.* and link.* events, or
 * with pid null the project.* and compute.* events. 'resync' means events may have been
 * missed. Returns the function that stops following. */
export const subscribe = (pid: string | null, handler: (e: LiveEvent) => void, onState?: (s: LiveState) => void) =>
  follow(conn(), pid, handler, onState);
