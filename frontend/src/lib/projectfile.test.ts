import { describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import * as api from './api';
import { useEnv } from './api';
import {
  copyName, exportFileName, exportQuery, firstProjectFile, newProjectId, notAProject, PROJECT_FILE_ACCEPT, projectFileKind, projectNameOf, snapshotName,
  snapshotTime,
} from './projectfile';
import { deleteSnapshot, loadSnapshots, snapshots, snapshotsState, takeSnapshot } from './stores/snapshots';
import { project } from './testdata';
import type { Snapshot } from './types';

const LOCATION = { protocol: 'http:', host: '127.0.0.1:3080' };

/** restFetch answers each request from routes ("METHOD /path?query")
 * and records it, body and content type included. */
function restFetch(routes: Record<string, () => Response>) {
  const calls: { route: string; body: string; type: string | null }[] = [];
  const fetch = vi.fn(async (req: Request) => {
    const u = new URL(req.url);
    const route = `${req.method} ${u.pathname}${u.search}`;
    calls.push({ route, body: req.body === null ? '' : await req.text(), type: req.headers.get('content-type') });
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
    expect(exportQuery({ include_snapshots: true, reset_mac_addresses: false })).toEqual({ include_snapshots: 'yes', reset_mac_addresses: 'no' });
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
