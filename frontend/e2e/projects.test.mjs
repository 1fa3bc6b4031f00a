// Project files and versions from the UI: a GNS3 project opened through
// the file picker and by a drop on the window, exported as a download,
// saved as a copy, and its snapshots taken, restored and deleted — each
// checked against the server over REST.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, canvasNode } from './harness.mjs';

const WAIT = 5_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

/** A small GNS3 2.2 project file: two VPCS linked, and a note. */
function dotGNS3(name) {
  const pc = (id, n, x) => ({
    compute_id: 'local', console: null, console_auto_start: false, console_type: 'telnet', custom_adapters: [], first_port_name: null,
    height: 59, label: { rotation: 0, style: 'font-size: 10.0pt;', text: n, x: 0, y: -25 }, locked: false, name: n, node_id: id,
    node_type: 'vpcs', port_name_format: 'Ethernet{0}', port_segment_size: 0, properties: {}, symbol: ':/symbols/vpcs_guest.svg',
    template_id: '19021f99-e36f-394d-b4a1-8aaa902ab9cc', width: 65, x, y: 0, z: 1,
  });
  const a = 'aaaaaaaa-0000-4000-8000-000000000001';
  const b = 'aaaaaaaa-0000-4000-8000-000000000002';
  return JSON.stringify({
    auto_close: true, auto_open: false, auto_start: false, drawing_grid_size: 25, grid_size: 75, name,
    project_id: 'aaaaaaaa-0000-4000-8000-00000000000f', revision: 9, scene_height: 1000, scene_width: 2000, show_grid: false,
    show_interface_labels: false, show_layers: false, snap_to_grid: false, supplier: null, variables: null, zoom: 100,
    topology: {
      computes: [],
      drawings: [{ drawing_id: 'aaaaaaaa-0000-4000-8000-000000000003', locked: false, rotation: 0, x: -100, y: -150, z: 2,
        svg: '<svg height="24" width="110"><text fill="#000000" fill-opacity="1.0" font-family="TypeWriter" font-size="10.0" font-weight="bold">imported note</text></svg>' }],
      links: [{ filters: {}, link_id: 'aaaaaaaa-0000-4000-8000-000000000004', link_style: {}, suspend: false,
        nodes: [{ adapter_number: 0, node_id: a, port_number: 0 }, { adapter_number: 0, node_id: b, port_number: 0 }] }],
      nodes: [pc(a, 'alpha', -200), pc(b, 'beta', 100)],
    },
    type: 'topology', version: '2.2.44',
  }, null, 4);
}

/** zipStored is a zip archive of files stored as they are (no compression). */
function zipStored(files) {
  const local = [];
  const central = [];
  let offset = 0;
  for (const [name, text] of Object.entries(files)) {
    const data = Buffer.from(text);
    const n = Buffer.from(name);
    const head = Buffer.alloc(30);
    head.writeUInt32LE(0x04034b50, 0); head.writeUInt16LE(20, 4); head.writeUInt32LE(crc32(data), 14);
    head.writeUInt32LE(data.length, 18); head.writeUInt32LE(data.length, 22); head.writeUInt16LE(n.length, 26);
    const dir = Buffer.alloc(46);
    dir.writeUInt32LE(0x02014b50, 0); dir.writeUInt16LE(20, 4); dir.writeUInt16LE(20, 6); dir.writeUInt32LE(crc32(data), 16);
    dir.writeUInt32LE(data.length, 20); dir.writeUInt32LE(data.length, 24); dir.writeUInt16LE(n.length, 28); dir.writeUInt32LE(offset, 42);
    local.push(head, n, data);
    central.push(dir, n);
    offset += head.length + n.length + data.length;
  }
  const dirBytes = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0); end.writeUInt16LE(central.length / 2, 8); end.writeUInt16LE(central.length / 2, 10);
  end.writeUInt32LE(dirBytes.length, 12); end.writeUInt32LE(offset, 16);
  return Buffer.concat([...local, dirBytes, end]);
}

describe('project files, save as and snapshots', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  let files;
  let exported;
  const pageErrors = [];
  const node = (name) => canvasNode(page, name);
  const projectNamed = async (name) => (await rest('GET', '/projects')).body.find((p) => p.name === name);
  const nodeNames = async (id) => (await rest('GET', `/projects/${id}/nodes`)).body.map((n) => n.name).sort();

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    files = mkdtempSync(path.join(tmpdir(), 'nodedesk-projects-'));
    pid = (await rest('POST', '/projects', { name: 'versions lab' })).body.project_id;
    const { body: templates } = await rest('GET', '/templates');
    const vpcs = templates.find((t) => t.template_type === 'vpcs').template_id;
    const a = (await rest('POST', `/projects/${pid}/templates/${vpcs}`, { x: 100, y: 100 })).body;
    const b = (await rest('POST', `/projects/${pid}/templates/${vpcs}`, { x: 300, y: 100 })).body;
    await rest('POST', `/projects/${pid}/links`, {
      nodes: [{ node_id: a.node_id, adapter_number: 0, port_number: 0 }, { node_id: b.node_id, adapter_number: 0, port_number: 0 }],
    });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await node('PC2').waitFor();
  });

  after(async () => {
    await screenshot(page, 'projects.png');
    await browser?.close();
    await server?.stop();
    if (files) rmSync(files, { recursive: true, force: true });
  });

  /** opened waits for a project to be shown with its nodes, and answers it. */
  async function opened(name, nodes) {
    await page.getByTestId('project-title').filter({ hasText: new RegExp(`^${name}$`) }).waitFor();
    for (const n of nodes) await node(n).waitFor();
    const p = await projectNamed(name);
    assert.ok(p, `${name} on the server`);
    assert.equal(p.status, 'opened');
    await until(() => page.evaluate((id) => location.hash === `#/projects/${id}`, p.project_id), WAIT, `${name} in the address`);
    return p;
  }

  test('opens a .gns3 file through the file picker (Open…): its nodes, link and note on the canvas', async () => {
    const file = path.join(files, 'picked lab.gns3');
    writeFileSync(file, dotGNS3('picked lab'));
    await page.getByTestId('project-file-input').setInputFiles(file);
    const p = await opened('picked lab', ['alpha', 'beta']);
    await page.getByTestId('topology-counts').and(page.locator('[data-nodes="2"][data-links="1"]')).waitFor();
    await page.locator('[data-testid="drawing"] text').filter({ hasText: 'imported note' }).waitFor();
    assert.deepEqual(await nodeNames(p.project_id), ['alpha', 'beta']);
    await page.getByTestId('toast-success').filter({ hasText: 'Opened picked lab' }).waitFor();
  });

  test('opens a .gns3 file dropped on the canvas', async () => {
    const text = dotGNS3('whatever the file says');
    const drop = async (target, name, body) => {
      const dt = await page.evaluateHandle(([n, b]) => {
        const d = new DataTransfer();
        d.items.add(new File([b], n, { type: 'application/json' }));
        return d;
      }, [name, body]);
      await page.dispatchEvent(target, 'dragover', { dataTransfer: dt });
      await page.getByTestId('drop-overlay').waitFor();
      await page.dispatchEvent(target, 'drop', { dataTransfer: dt });
    };
    await drop('[data-testid="canvas"]', 'dropped lab.gns3', text);
    await page.getByTestId('drop-overlay').waitFor({ state: 'detached' });
    const p = await opened('dropped lab', ['alpha', 'beta']);
    assert.deepEqual(await nodeNames(p.project_id), ['alpha', 'beta']);
    // A file that is no project is not sent.
    const before = (await rest('GET', '/projects')).body.length;
    await drop('[data-testid="canvas"]', 'photo.png', 'not a project');
    await page.getByTestId('toast-error').filter({ hasText: 'photo.png is not a GNS3 project' }).waitFor();
    assert.equal((await rest('GET', '/projects')).body.length, before);
  });

  test('opens a file dropped on the start screen', async () => {
    await page.getByTestId('project-close').click();
    await page.getByTestId('start-screen').waitFor();
    const dt = await page.evaluateHandle((b) => {
      const d = new DataTransfer();
      d.items.add(new File([b], 'start lab.gns3'));
      return d;
    }, dotGNS3('start lab'));
    await page.dispatchEvent('[data-testid="start-screen"]', 'drop', { dataTransfer: dt });
    await opened('start lab', ['alpha', 'beta']);
  });

  test('exports a project as a .gns3project download (a zip); a running one gets the server\'s 409', async () => {
    await page.goto(`${server.url}/#/projects/${pid}`);
    await node('PC2').waitFor();
    await page.getByTestId('canvas').click({ position: { x: 600, y: 500 } });
    await page.keyboard.press('Control+e');
    const dialog = page.getByTestId('export-dialog');
    await dialog.getByTestId('export-snapshots').check();
    const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByTestId('export-submit').click()]);
    assert.equal(download.suggestedFilename(), 'versions lab.gns3project');
    exported = path.join(files, 'versions lab.gns3project');
    await download.saveAs(exported);
    assert.equal(readFileSync(exported).subarray(0, 2).toString('latin1'), 'PK');
    await dialog.waitFor({ state: 'detached' });

    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    const started = await rest('POST', `/projects/${pid}/nodes/${nodes[0].node_id}/start`, {});
    if (started.status !== 200) return; // no vpcs on this machine: nothing can run
    try {
      await page.getByTestId('project-export').click();
      await dialog.getByTestId('export-submit').click();
      await dialog.getByTestId('export-error').waitFor();
      await page.keyboard.press('Escape');
    } finally {
      await rest('POST', `/projects/${pid}/nodes/${nodes[0].node_id}/stop`, {});
    }
  });

  test('opens the exported .gns3project through the picker: a new project with the same nodes', async () => {
    const copy = path.join(files, 'round trip.gns3project');
    writeFileSync(copy, readFileSync(exported));
    const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.getByTestId('open-project-file').click()]);
    assert.equal(await chooser.element().getAttribute('accept'), '.gns3,.gns3project,.gns3p');
    await chooser.setFiles(copy);
    const p = await opened('round trip', ['PC1', 'PC2']);
    assert.notEqual(p.project_id, pid);
    assert.deepEqual(await nodeNames(p.project_id), ['PC1', 'PC2']);
    await page.goto(`${server.url}/#/projects/${pid}`);
    await node('PC2').waitFor();
  });

  test('a hostile archive is refused with the server\'s reason, and nothing is opened', async () => {
    const evil = path.join(files, 'evil.gns3project');
    writeFileSync(evil, zipStored({ 'evil.gns3': dotGNS3('evil'), '../../escaped.txt': 'out of the project' }));
    const before = (await rest('GET', '/projects')).body.length;
    await page.getByTestId('project-file-input').setInputFiles(evil);
    await page.getByTestId('toast-error').filter({ hasText: 'Could not open evil.gns3project: ' }).waitFor();
    assert.equal((await rest('GET', '/projects')).body.length, before);
    assert.equal(await page.getByTestId('project-title').textContent(), 'versions lab');
  });

  test('a project of a newer GNS3 is refused with what to do', async () => {
    const newer = JSON.parse(dotGNS3('future'));
    Object.assign(newer, { revision: 10, version: '3.0.0', project_id: 'aaaaaaaa-0000-4000-8000-0000000000ff' });
    const before = (await rest('GET', '/projects')).body.length;
    await page.getByTestId('project-file-input').setInputFiles({ name: 'future.gns3', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(newer)) });
    const toast = page.getByTestId('toast-error').filter({ hasText: 'Could not open future.gns3: ' });
    await toast.waitFor();
    assert.match(await toast.textContent(), /newer GNS3/);
    assert.equal((await rest('GET', '/projects')).body.length, before);
  });

  test('takes a snapshot, and restoring it brings the canvas back', async () => {
    await page.getByTestId('project-snapshots').click();
    const dialog = page.getByTestId('snapshots-dialog');
    await dialog.getByTestId('snapshots-empty').waitFor();
    await dialog.getByTestId('snapshot-name').fill('two hosts');
    await dialog.getByTestId('snapshot-take').click();
    await dialog.locator('[data-testid="snapshot-item"][data-name="two hosts"]').waitFor();
    const { body: snaps } = await rest('GET', `/projects/${pid}/snapshots`);
    assert.deepEqual(snaps.map((s) => s.name), ['two hosts']);
    // The same name again: the server's 409 by the field.
    await dialog.getByTestId('snapshot-name').fill('two hosts');
    await dialog.getByTestId('snapshot-take').click();
    await dialog.getByTestId('snapshot-name-error').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // A change: PC2 goes, PC3 comes.
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    await rest('DELETE', `/projects/${pid}/nodes/${nodes.find((n) => n.name === 'PC2').node_id}`);
    await node('PC2').waitFor({ state: 'detached' });
    await page.getByTestId('project-snapshots').click();
    await dialog.locator('[data-testid="snapshot-item"][data-name="two hosts"]').getByTestId('snapshot-restore').click();
    const confirm = page.getByTestId('confirm-dialog');
    await confirm.filter({ hasText: 'Restore “two hosts”?' }).filter({ hasText: 'The current topology is replaced' }).waitFor();
    await confirm.getByTestId('confirm-ok').click();
    await dialog.waitFor({ state: 'detached' });
    await node('PC2').waitFor();
    await page.getByTestId('topology-counts').and(page.locator('[data-nodes="2"][data-links="1"]')).waitFor();
    assert.deepEqual(await nodeNames(pid), ['PC1', 'PC2']);
  });

  test('a restore refused by the server says why in the dialog', async () => {
    // A snapshot another client deletes while the dialog shows it: the
    // restore is refused (404), and the dialog says so in the server's words.
    const { body: doomed } = await rest('POST', `/projects/${pid}/snapshots`, { name: 'doomed' });
    await page.getByTestId('project-snapshots').click();
    const dialog = page.getByTestId('snapshots-dialog');
    const row = dialog.locator('[data-testid="snapshot-item"][data-name="doomed"]');
    await row.waitFor();
    await rest('DELETE', `/projects/${pid}/snapshots/${doomed.snapshot_id}`);
    await row.getByTestId('snapshot-restore').click();
    await page.getByTestId('confirm-ok').click();
    await dialog.getByTestId('snapshots-error').filter({ hasText: 'Could not restore “doomed”' }).filter({ hasText: "doesn't exist" }).waitFor();
    await page.keyboard.press('Escape');
  });


  test('deletes a snapshot after asking', async () => {
    await page.getByTestId('project-snapshots').click();
    const dialog = page.getByTestId('snapshots-dialog');
    const item = dialog.locator('[data-testid="snapshot-item"][data-name="two hosts"]');
    await item.getByTestId('snapshot-delete').click();
    await page.getByTestId('confirm-dialog').filter({ hasText: 'Delete “two hosts”?' }).waitFor();
    await page.getByTestId('confirm-ok').click();
    await item.waitFor({ state: 'detached' });
    await dialog.getByTestId('snapshots-empty').waitFor();
    assert.deepEqual((await rest('GET', `/projects/${pid}/snapshots`)).body, []);
    await page.keyboard.press('Escape');
  });

  test('a snapshot of running nodes: the server\'s 409, then Stop and snapshot stops them and takes it', async () => {
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    const started = await rest('POST', `/projects/${pid}/nodes/start`, {});
    assert.equal(started.status, 204, 'the VPCS nodes start (vpcs is on this machine)');
    await page.getByTestId('project-snapshots').click();
    const dialog = page.getByTestId('snapshots-dialog');
    await dialog.getByTestId('snapshot-name').fill('live');
    await dialog.getByTestId('snapshot-take').click();
    await dialog.getByTestId('snapshot-name-error').filter({ hasText: 'must be stopped' }).waitFor();
    assert.deepEqual((await rest('GET', `/projects/${pid}/snapshots`)).body, []);
    await dialog.getByTestId('snapshot-stop-take').click();
    await dialog.locator('[data-testid="snapshot-item"][data-name="live"]').waitFor();
    await dialog.getByTestId('snapshot-stop-take').waitFor({ state: 'detached' });
    const after = (await rest('GET', `/projects/${pid}/nodes`)).body;
    assert.deepEqual(after.map((n) => n.status), nodes.map(() => 'stopped'));
    assert.deepEqual((await rest('GET', `/projects/${pid}/snapshots`)).body.map((s) => s.name), ['live']);
    const live = (await rest('GET', `/projects/${pid}/snapshots`)).body[0];
    await rest('DELETE', `/projects/${pid}/snapshots/${live.snapshot_id}`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  test('saves the project as a copy (Ctrl+Shift+S) and opens the copy with the same nodes', async () => {
    await page.getByTestId('canvas').click({ position: { x: 600, y: 500 } });
    await page.keyboard.press('Control+Shift+S');
    const dialog = page.getByTestId('save-as-dialog');
    assert.equal(await dialog.getByTestId('save-as-dialog-input').inputValue(), 'versions lab copy');
    await dialog.getByTestId('save-as-dialog-input').fill('versions lab v2');
    await dialog.getByTestId('save-as-reset-macs').check();
    await dialog.getByTestId('save-as-dialog-submit').click();
    await page.getByTestId('project-title').filter({ hasText: 'versions lab v2' }).waitFor();
    const copy = await projectNamed('versions lab v2');
    assert.notEqual(copy.project_id, pid);
    await until(() => page.evaluate((id) => location.hash === `#/projects/${id}`, copy.project_id), WAIT, 'the copy in the address');
    await node('PC1').waitFor();
    await node('PC2').waitFor();
    await page.getByTestId('topology-counts').and(page.locator('[data-nodes="2"][data-links="1"]')).waitFor();
    assert.deepEqual(await nodeNames(copy.project_id), ['PC1', 'PC2']);
    assert.equal((await rest('GET', `/projects/${copy.project_id}`)).body.status, 'opened');
    // Back to the original.
    await page.locator('[data-testid="project-item"][data-name="versions lab"] button.open').click();
    await page.getByTestId('project-title').filter({ hasText: /^versions lab$/ }).waitFor();
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors.map(String), []);
  });
});
