import { beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import * as api from './api';
import { useEnv } from './api';
import type { Bindings } from './transport';
import {
  copyName, exportFileName, exportQuery, firstProjectFile, newProjectId, notAProject, PROJECT_FILE_ACCEPT, projectFileKind, projectNameOf, snapshotName,
  snapshotTime,
} from './projectfile';
import { deleteSnapshot, loadSnapshots, snapshots, snapshotsState, takeSnapshot } from './stores/snapshots';
import { notices } from './stores/notices';
import { openFiles, openPaths, pickProjectFile } from './stores/projectfiles';
import { currentId, projects } from './stores/projects';
import { project } from './testdata';
import type { Snapshot } from './types';

const LOCATION = { protocol: 'http:', host: '127.0.0.1:3080' };

/** restFetch answers each request from routes ("METHOD /path?query")
 * and records it, body and content type included. */
function restFetch(routes: Record<string, () => Response>) {
  const calls: { route: string; body: string; bytes: Uint8Array; type: string | null }[] = [];
  const fetch = vi.fn(async (req: Request) => {
    const u = new URL(req.url);
    const route = `${req.method} ${u.pathname}${u.search}`;
    const bytes = new Uint8Array(req.body === null ? new ArrayBuffer(0) : await req.arrayBuffer());
    calls.push({ route, body: new TextDecoder().decode(bytes), bytes, type: req.headers.get('content-type') });
    const r = routes[route];
    if (!r) return json({ message: `no route ${route}`, status: 404, code: 'not_found' }, 404);
    return r();
  });
  useEnv({ fetch, location: LOCATION });
  return calls;
}

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } });

const snap = (id: string, name: string, created_at: number): Snapshot => ({
  snapshot_id: id, project_id: 'p1', name, created_at, description: `${name} of ${created_at}`, filename: `${name}.gns3snapshot`,
});

describe('project files', () => {
  it('knows GNS3 project files by their extension, in any case', () => {
    expect(['lab.gns3', 'LAB.GNS3PROJECT', 'x.gns3p', 'lab.gns3.bak', 'gns3', 'lab.zip'].map(projectFileKind)).toEqual([
      'project', 'portable', 'portable', null, null, null,
    ]);
    expect(PROJECT_FILE_ACCEPT).toBe('.gns3,.gns3project,.gns3p');
    expect(notAProject('notes.txt')).toMatch(/^notes\.txt is not a GNS3 project: open a \.gns3 .* or a \.gns3project/);
  });

  it('names the project after the file', () => {
    expect(projectNameOf('ospf lab.gns3project')).toBe('ospf lab');
    expect(projectNameOf('/home/me/labs/core.v2.gns3')).toBe('core.v2');
    expect(projectNameOf('C:\\labs\\edge.gns3p')).toBe('edge');
    expect(projectNameOf('.gns3')).toBe('.gns3');
  });

  it('picks the first project file among several', () => {
    const f = (name: string) => ({ name });
    expect(firstProjectFile([f('a.txt'), f('b.gns3project'), f('c.gns3')])).toEqual({ file: f('b.gns3project'), others: 2 });
    expect(firstProjectFile([f('a.txt')])).toEqual({ file: null, others: 1 });
    expect(firstProjectFile([])).toEqual({ file: null, others: 0 });
  });

  it('names an export after its project, without path separators', () => {
    expect(exportFileName('ospf lab')).toBe('ospf lab.gns3project');
    expect(exportFileName('core/edge\\x')).toBe('core-edge-x.gns3project');
    expect(exportFileName('  ')).toBe('project.gns3project');
  });

  it('spells the export options as GNS3 does', () => {
    expect(exportQuery({ include_snapshots: true, reset_mac_addresses: false, include_images: true })).toEqual({ include_snapshots: 'yes', reset_mac_addresses: 'no', include_images: 'yes' });
  });

  it('makes version 4 UUIDs', () => {
    expect(newProjectId((a) => a.fill(0xff))).toBe('ffffffff-ffff-4fff-bfff-ffffffffffff');
    expect(newProjectId((a) => a.fill(0))).toBe('00000000-0000-4000-8000-000000000000');
    const a = newProjectId();
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(newProjectId()).not.toBe(a);
  });

  it('proposes names for copies and snapshots', () => {
    expect(copyName('lab')).toBe('lab copy');
    expect(snapshotName(new Date(2025, 0, 5, 9, 7, 59))).toBe('2025-01-05 09:07');
    expect(snapshotTime(1_700_000_000).toISOString()).toBe('2023-11-14T22:13:20.000Z');
  });
});

describe('save as and snapshots over REST', () => {
  it('copies a project with its name and MAC choice', async () => {
    const calls = restFetch({ 'POST /v2/projects/p1/duplicate': () => json(project('p2', { name: 'lab copy', status: 'closed' }), 201) });
    expect((await api.duplicateProject('p1', { name: 'lab copy', reset_mac_addresses: true })).project_id).toBe('p2');
    expect(JSON.parse(calls[0].body)).toEqual({ name: 'lab copy', reset_mac_addresses: true });
  });

  it('lists, takes, restores and deletes snapshots at their routes', async () => {
    const calls = restFetch({
      'GET /v2/projects/p1/snapshots': () => json([snap('s2', 'b', 20), snap('s1', 'a', 10)]),
      'POST /v2/projects/p1/snapshots': () => json(snap('s3', 'c', 30), 201),
      'POST /v2/projects/p1/snapshots/s1/restore': () => json(project('p1'), 201),
      'DELETE /v2/projects/p1/snapshots/s2': () => new Response(null, { status: 204 }),
    });
    await loadSnapshots('p1');
    expect(get(snapshotsState)).toBe('ready');
    expect(get(snapshots).map((s) => s.name)).toEqual(['a', 'b']);
    await takeSnapshot('p1', 'c');
    expect(JSON.parse(calls[1].body)).toEqual({ name: 'c' });
    expect(get(snapshots).map((s) => s.name)).toEqual(['a', 'b', 'c']);
    await api.restoreSnapshot('p1', 's1');
    await deleteSnapshot('p1', 's2');
    expect(get(snapshots).map((s) => s.name)).toEqual(['a', 'c']);
    expect(calls.map((c) => c.route)).toEqual([
      'GET /v2/projects/p1/snapshots',
      'POST /v2/projects/p1/snapshots',
      'POST /v2/projects/p1/snapshots/s1/restore',
      'DELETE /v2/projects/p1/snapshots/s2',
    ]);
  });

  it('gives the server\'s reason when a restore is refused', async () => {
    const running = { message: 'Stop the running nodes (PC1) before restoring a snapshot', status: 409, code: 'conflict' };
    restFetch({ 'POST /v2/projects/p1/snapshots/s1/restore': () => json(running, 409) });
    await expect(api.restoreSnapshot('p1', 's1')).rejects.toMatchObject({ message: running.message, status: 409, code: 'conflict' });
  });

  it('says why the list could not be read', async () => {
    restFetch({});
    await loadSnapshots('p9');
    expect(get(snapshotsState)).toEqual({ error: 'no route GET /v2/projects/p9/snapshots' });
  });
});

const ZIP = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0xff, 0x00, 0x80]);
const UUID4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('project files over REST (browser)', () => {
  it('uploads a file\'s bytes unchanged to GNS3\'s import, under a new id and the file\'s name', async () => {
    let route = '';
    const calls = restFetch(new Proxy({}, {
      get: (_t, r: string) => (r.startsWith('POST /v2/projects/') && r.includes('/import?') ? ((route = r), () => json(project('p7', { name: 'ospf lab', status: 'closed' }), 201)) : undefined),
    }));
    const p = await api.importProject(new Blob([ZIP]), 'ospf lab');
    expect(p.project_id).toBe('p7');
    const m = /^POST \/v2\/projects\/([^/]+)\/import\?name=ospf%20lab$/.exec(route);
    expect(m?.[1]).toMatch(UUID4);
    expect(calls[0].bytes).toEqual(ZIP);
    expect(calls[0].type).toBe('application/octet-stream');
  });

  it('gives the server\'s reason when an import is refused', async () => {
    const newer = { message: 'This project was saved by a newer GNS3 (revision 10); open it in that GNS3 and export it for 2.2', status: 409, code: 'conflict' };
    restFetch(new Proxy({}, { get: (_t, r: string) => (r.includes('/import?') ? () => json(newer, 409) : undefined) }));
    await expect(api.importProject(new Blob(['{}']), 'new')).rejects.toMatchObject({ message: newer.message, status: 409, code: 'conflict' });
  });

  it('exports with GNS3\'s options and answers the archive', async () => {
    const calls = restFetch({
      'GET /v2/projects/p1/export?include_snapshots=yes&reset_mac_addresses=no&include_images=yes': () => new Response(ZIP, { headers: { 'Content-Type': 'application/zip' } }),
      'GET /v2/projects/p1/export?include_snapshots=no&reset_mac_addresses=yes&include_images=no': () => json({ message: 'Stop the running nodes before exporting', status: 409, code: 'conflict' }, 409),
    });
    const r = await api.exportProject('p1', { include_snapshots: true, reset_mac_addresses: false, include_images: true });
    expect(r.kind).toBe('download');
    if (r.kind === 'download') expect(new Uint8Array(await r.archive.arrayBuffer())).toEqual(ZIP);
    await expect(api.exportProject('p1', { include_snapshots: false, reset_mac_addresses: true, include_images: false })).rejects.toMatchObject({ status: 409, code: 'conflict' });
    expect(calls).toHaveLength(2);
  });

  it('has no window to drop paths on, or native dialogs', async () => {
    restFetch({});
    const got: string[][] = [];
    api.droppedPaths((p) => got.push(p))();
    expect(got).toEqual([]);
    await expect(api.openProjectFile()).rejects.toMatchObject({ message: 'Only the nodedesk window can show an Open dialog' });
  });
});

/** A Wails window whose project-file bindings are fakes; runtime events
 * can be emitted to the page. */
function fileWindow(over: Partial<Bindings> = {}) {
  const listeners = new Map<string, ((...data: unknown[]) => void)[]>();
  const App: Partial<Bindings> = {
    Call: vi.fn(async (method: string, path: string) =>
      method === 'POST' && path.endsWith('/open') ? { status: 200, body: JSON.stringify(project(path.split('/')[3], { name: 'ospf lab' })) } : { status: 404, body: '{}' }),
    OpenProjectFile: vi.fn(async () => 'p5'),
    ImportProjectFile: vi.fn(async () => 'p6'),
    ExportProject: vi.fn(async () => '/home/me/lab.gns3project'),
    ...over,
  };
  const off = vi.fn();
  const runtime = {
    EventsOn: vi.fn((name: string, cb: (...data: unknown[]) => void) => {
      listeners.set(name, [...(listeners.get(name) ?? []), cb]);
      return off;
    }),
  };
  const fetch = vi.fn(async () => {
    throw new Error('REST must not be used in the window');
  });
  useEnv({ go: { desktop: { App } }, runtime, fetch, location: LOCATION });
  return { App, off, fetch, emit: (name: string, ...data: unknown[]) => listeners.get(name)?.forEach((cb) => cb(...data)) };
}

describe('project files in the Wails window', () => {
  it('opens through the native dialog, by path, and exports to the file picked; nothing over REST', async () => {
    const w = fileWindow();
    expect(await api.openProjectFile()).toBe('p5');
    vi.mocked(w.App.OpenProjectFile!).mockResolvedValueOnce('');
    expect(await api.openProjectFile()).toBeNull(); // cancelled
    expect(await api.importProjectPath('/labs/a.gns3')).toBe('p6');
    expect(w.App.ImportProjectFile).toHaveBeenCalledWith('/labs/a.gns3');
    const o = { include_snapshots: true, reset_mac_addresses: true, include_images: false };
    expect(await api.exportProject('p1', o)).toEqual({ kind: 'saved', path: '/home/me/lab.gns3project' });
    expect(w.App.ExportProject).toHaveBeenCalledWith('p1', o);
    vi.mocked(w.App.ExportProject!).mockResolvedValueOnce('');
    expect(await api.exportProject('p1', o)).toEqual({ kind: 'cancelled' });
    await expect(api.importProject(new Blob([ZIP]), 'x')).rejects.toThrow(/by their path/);
    expect(w.fetch).not.toHaveBeenCalled();
  });

  it('gives the API\'s refusal as the door passed it on', async () => {
    const hostile = '{"message":"The archive has a member outside the project (../../etc/passwd)","code":"invalid"}';
    fileWindow({ ImportProjectFile: vi.fn(async () => Promise.reject(new Error(hostile))) });
    await expect(api.importProjectPath('/tmp/evil.gns3project')).rejects.toMatchObject({ code: 'invalid', message: 'The archive has a member outside the project (../../etc/passwd)' });
  });

  it('passes the paths of files dropped on the window, until stopped', () => {
    const w = fileWindow();
    const got: string[][] = [];
    const stop = api.droppedPaths((p) => got.push(p));
    w.emit('wails:file-drop', 10, 20, ['/labs/a.gns3project', 7]);
    expect(got).toEqual([['/labs/a.gns3project']]);
    stop();
    expect(w.off).toHaveBeenCalled();
  });
});

describe('opening project files (stores)', () => {
  beforeEach(() => {
    notices.set([]);
    projects.set([]);
    currentId.set(null);
  });
  const said = () => get(notices).map((n) => `${n.kind}: ${n.message}`);

  it('imports a picked file and shows the new project', async () => {
    restFetch(new Proxy({}, {
      get: (_t, r: string) =>
        r.includes('/import?name=ospf%20lab') ? () => json(project('p7', { name: 'ospf lab', status: 'closed' }), 201)
        : r === 'POST /v2/projects/p7/open' ? () => json(project('p7', { name: 'ospf lab' }))
        : undefined,
    }));
    await openFiles([new File([ZIP], 'notes.txt'), new File([ZIP], 'ospf lab.gns3project')]);
    expect(get(currentId)).toBe('p7');
    expect(said()).toEqual(['info: Opening ospf lab.gns3project only: open one project at a time', 'success: Opened ospf lab']);
  });

  it('opens no file that is not a project, and says why one was refused', async () => {
    const calls = restFetch(new Proxy({}, {
      get: (_t, r: string) => (r.includes('/import?') ? () => json({ message: 'The file is not a GNS3 project: no .gns3 file in the archive', status: 400, code: 'invalid' }, 400) : undefined),
    }));
    await openFiles([new File(['x'], 'photo.png')]);
    expect(calls).toHaveLength(0);
    await openFiles([new File(['x'], 'bad.gns3project')]);
    expect(said()).toEqual([
      'error: photo.png is not a GNS3 project: open a .gns3 project file or a .gns3project portable project',
      'error: Could not open bad.gns3project: The file is not a GNS3 project: no .gns3 file in the archive',
    ]);
    expect(get(currentId)).toBeNull();
  });

  it('in the window: Open is the native dialog, a drop opens by path', async () => {
    const w = fileWindow();
    pickProjectFile();
    await vi.waitFor(() => expect(get(currentId)).toBe('p5'));
    await openPaths(['/home/me/labs/b.gns3']);
    expect(w.App.ImportProjectFile).toHaveBeenCalledWith('/home/me/labs/b.gns3');
    expect(get(currentId)).toBe('p6');
    vi.mocked(w.App.OpenProjectFile!).mockResolvedValueOnce('');
    notices.set([]);
    pickProjectFile();
    await new Promise((r) => setTimeout(r, 10));
    expect(said()).toEqual([]); // cancelled: nothing to say
  });
});
