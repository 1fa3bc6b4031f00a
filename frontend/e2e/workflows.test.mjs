// More of what a user does: move nodes (mouse and keys), select all,
// duplicate, run a real VPCS, edit Frame Relay and ATM switches, read the console
// command, follow a second tab, and manage projects.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

describe('nodedesk UI workflows', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const ids = {};
  const pageErrors = [];
  const node = (p, name) => canvasNode(p, name);
  const getNode = async (id) => (await rest('GET', `/projects/${pid}/nodes/${id}`)).body;

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    // A project with two hosts and a Frame Relay switch, made through REST.
    pid = (await rest('POST', '/projects', { name: 'wan lab' })).body.project_id;
    const { body: templates } = await rest('GET', '/templates');
    const tid = (type) => templates.find((t) => t.template_type === type).template_id;
    ids.pc1 = (await rest('POST', `/projects/${pid}/templates/${tid('vpcs')}`, { x: 0, y: 0 })).body.node_id;
    ids.pc2 = (await rest('POST', `/projects/${pid}/templates/${tid('vpcs')}`, { x: 300, y: 0 })).body.node_id;
    ids.fr = (await rest('POST', `/projects/${pid}/templates/${tid('frame_relay_switch')}`, { x: 150, y: 250 })).body.node_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await node(page, 'FRSW1').waitFor();
  });

  after(async () => {
    await screenshot(page, 'workflows.png');
    await browser?.close();
    await server?.stop();
  });

  test('opens the project named in the address', async () => {
    assert.equal(await page.getByTestId('project-title').textContent(), 'wan lab');
    assert.equal(await page.getByTestId('canvas-node').count(), 3);
  });

  test('dragging a node saves its new position', async () => {
    const before = await getNode(ids.pc2);
    const box = await node(page, 'PC2').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + 20);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 40, box.y + 80, { steps: 8 });
    await page.mouse.up();
    const after = await until(async () => {
      const n = await getNode(ids.pc2);
      return n.x !== before.x && n.y !== before.y ? n : null;
    }, WAIT, 'the moved position on the server');
    assert.ok(after.x > before.x && after.y > before.y, `moved right and down: ${JSON.stringify([before.x, before.y, after.x, after.y])}`);
  });

  test('arrow keys nudge the selection by 10 px, Shift by 1 px, and save', async () => {
    const before = await getNode(ids.pc1);
    await clickNode(page, 'PC1');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    const after = await until(async () => {
      const n = await getNode(ids.pc1);
      return n.x === before.x + 20 && n.y === before.y + 1 ? n : null;
    }, WAIT, 'the nudged position on the server');
    assert.equal(after.x, before.x + 20);
  });

  test('Ctrl+A selects every node; Escape clears the selection', async () => {
    await page.locator('.svelte-flow__pane').click({ position: { x: 10, y: 10 } });
    await page.keyboard.press('Control+a');
    await page.getByTestId('selection-panel').filter({ hasText: '3 nodes selected' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('project-panel').waitFor();
  });

  test('starts and stops a real VPCS, and gives its console command', async () => {
    await clickNode(page, 'PC1');
    await page.getByTestId('node-start').click();
    await until(async () => (await node(page, 'PC1').getAttribute('data-status')) === 'started', WAIT, 'PC1 started');
    assert.equal((await getNode(ids.pc1)).status, 'started');
    const { console: port } = await getNode(ids.pc1);
    await page.getByTestId('node-console-external').click();
    assert.equal(await page.getByTestId('console-command').textContent(), `telnet 127.0.0.1 ${port}`);
    await page.keyboard.press('Escape');
    await page.getByTestId('console-dialog').waitFor({ state: 'detached' });
    await page.getByTestId('node-stop').click();
    await until(async () => (await node(page, 'PC1').getAttribute('data-status')) === 'stopped', WAIT, 'PC1 stopped');
  });

  test('saves a VPCS startup script', async () => {
    await clickNode(page, 'PC2');
    await page.getByTestId('field-startup_script').fill('ip 10.0.0.2/24 10.0.0.1\n');
    await page.getByTestId('node-save').click();
    await page.getByTestId('node-panel').getByText('All changes saved').waitFor();
    assert.equal((await getNode(ids.pc2)).properties.startup_script, 'ip 10.0.0.2/24 10.0.0.1\n');
  });

  test('edits Frame Relay DLCI mappings, and a bad DLCI is shown by the table', async () => {
    await clickNode(page, 'FRSW1');
    await page.getByTestId('fr-add').click();
    await page.getByTestId('fr-add').click();
    const rows = page.getByTestId('fr-row');
    assert.equal(await rows.count(), 2);
    await page.getByTestId('node-save').click();
    await page.getByTestId('node-panel').getByText('All changes saved').waitFor();
    assert.deepEqual((await getNode(ids.fr)).properties.mappings, { '1:101': '2:201', '1:102': '2:202' });
    assert.equal((await getNode(ids.fr)).ports.length, 2, 'the circuits made ports 1 and 2');

    await page.getByTestId('fr-src-dlci').nth(1).fill('5000');
    await page.getByTestId('node-save').click();
    await page.getByTestId('error-mappings').filter({ hasText: 'out of range' }).waitFor();
    assert.deepEqual((await getNode(ids.fr)).properties.mappings, { '1:101': '2:201', '1:102': '2:202' });
    await page.getByTestId('node-revert').click();
  });

  test('edits ATM VPI/VCI mappings: a channel and a path; a refusal is shown as the server says it', async () => {
    const { body: templates } = await rest('GET', '/templates');
    const tid = templates.find((t) => t.template_type === 'atm_switch').template_id;
    const atm = (await rest('POST', `/projects/${pid}/templates/${tid}`, { x: 300, y: 250 })).body;
    await clickNode(page, atm.name);
    await page.getByTestId('atm-add').click();
    await page.getByTestId('atm-add').click();
    assert.equal(await page.getByTestId('atm-row').count(), 2);
    // The second row becomes a virtual path: VPI 2 on both sides, no VCIs.
    await page.getByTestId('atm-src-vpi').nth(1).fill('2');
    await page.getByTestId('atm-src-vci').nth(1).fill('');
    await page.getByTestId('atm-dst-vpi').nth(1).fill('2');
    await page.getByTestId('atm-dst-vci').nth(1).fill('');
    await page.getByTestId('node-save').click();
    await page.getByTestId('node-panel').getByText('All changes saved').waitFor();
    const saved = { '1:1:100': '2:1:100', '1:2': '2:2' };
    assert.deepEqual((await getNode(atm.node_id)).properties.mappings, saved);
    assert.equal((await getNode(atm.node_id)).ports.length, 2, 'the connections made ports 1 and 2');

    // A VCI at one end only: the row is refused before anything is sent.
    await page.getByTestId('atm-dst-vci').nth(1).fill('7');
    await page.getByTestId('node-save').click();
    await page.getByTestId('error-mappings').filter({ hasText: 'Row 2: a virtual channel has a VCI at both ends' }).waitFor();
    await page.getByTestId('atm-dst-vci').nth(1).fill('');

    // A path over VPI 1 of port 1, where the channel lies: only the server
    // sees the whole table, and its message is shown as it is.
    await page.getByTestId('atm-src-vpi').nth(1).fill('1');
    await page.getByTestId('node-save').click();
    const shown = page.getByTestId('error-mappings').filter({ hasText: 'switched whole' });
    await shown.waitFor();
    const refused = await rest('PUT', `/projects/${pid}/nodes/${atm.node_id}`, { properties: { mappings: { '1:1:100': '2:1:100', '1:1': '2:2' } } });
    assert.equal(refused.status, 400);
    assert.equal(await shown.textContent(), refused.body.message);
    assert.deepEqual((await getNode(atm.node_id)).properties.mappings, saved);
    await page.getByTestId('node-revert').click();
  });

  test('duplicates the selection beside itself', async () => {
    await clickNode(page, 'PC2');
    await page.getByTestId('node-duplicate').click();
    await node(page, 'PC3').waitFor();
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    const [pc2, pc3] = ['PC2', 'PC3'].map((n) => nodes.find((x) => x.name === n));
    assert.ok(pc3, 'the copy exists on the server');
    assert.ok(pc3.x > pc2.x && pc3.y > pc2.y, 'the copy sits beside the original');
    assert.equal(pc3.properties.startup_script, pc2.properties.startup_script);
  });

  test('a second browser tab follows changes made in the first', async () => {
    const other = await browser.context.newPage();
    other.on('pageerror', (e) => pageErrors.push(e));
    await other.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await node(other, 'PC3').waitFor();
    await clickNode(page, 'PC3');
    await page.keyboard.press('Delete');
    await node(other, 'PC3').waitFor({ state: 'detached', timeout: 1000 });
    await other.close();
  });

  test('renames a project and deletes it after confirming', async () => {
    const row = page.locator('[data-testid="project-item"][data-name="wan lab"]');
    await row.hover();
    await row.getByTestId('project-rename').click();
    await page.getByTestId('rename-dialog-input').fill('wan lab 2');
    await page.getByTestId('rename-dialog-submit').click();
    await page.getByTestId('project-title').filter({ hasText: 'wan lab 2' }).waitFor();
    assert.equal((await rest('GET', `/projects/${pid}`)).body.name, 'wan lab 2');

    const renamed = page.locator('[data-testid="project-item"][data-name="wan lab 2"]');
    await renamed.getByTestId('project-delete').click();
    await page.getByTestId('confirm-dialog').waitFor();
    await page.getByTestId('confirm-cancel').click(); // changing one's mind keeps it
    assert.equal((await rest('GET', `/projects/${pid}`)).status, 200);
    await renamed.getByTestId('project-delete').click();
    await page.getByTestId('confirm-ok').click();
    await page.getByTestId('start-screen').waitFor();
    assert.equal((await rest('GET', `/projects/${pid}`)).status, 404);
    assert.equal(await page.locator('[data-testid="project-item"]').count(), 0);
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
