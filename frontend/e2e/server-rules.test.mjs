// The page repeats no rule of the server's: what differs between node types
// comes from GET /v2/node_types, and a refused save is shown where the
// server's error `field` points. These tests fail when the page and the
// real server disagree.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000;

describe('the page follows the server', { timeout: 60_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  let nodeTypes;
  const ids = {};
  const pageErrors = [];
  const node = (name) => canvasNode(page, name);
  const getNode = async (id) => (await rest('GET', `/projects/${pid}/nodes/${id}`)).body;

  /** Opens a node's property panel. */
  async function open(name) {
    await clickNode(page, name);
    await page.getByTestId('panel-node-name').filter({ hasText: name }).waitFor();
  }

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    nodeTypes = new Map((await rest('GET', '/node_types')).body.map((t) => [t.node_type, t]));
    pid = (await rest('POST', '/projects', { name: 'rules lab' })).body.project_id;
    const { body: templates } = await rest('GET', '/templates');
    const tid = (type) => templates.find((t) => t.template_type === type).template_id;
    ids.pc = (await rest('POST', `/projects/${pid}/templates/${tid('vpcs')}`, { x: 0, y: 0 })).body.node_id;
    ids.sw = (await rest('POST', `/projects/${pid}/templates/${tid('ethernet_switch')}`, { x: 250, y: 0 })).body.node_id;
    const vm = await rest('POST', `/projects/${pid}/nodes`, { node_type: 'qemu', name: 'vm1', compute_id: 'local', x: 0, y: 250 });
    assert.equal(vm.status, 201, JSON.stringify(vm.body));
    ids.vm = vm.body.node_id;
    const r = await rest('POST', `/projects/${pid}/nodes`, { node_type: 'traceng', name: 'r1', compute_id: 'local', x: 250, y: 250 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await node('vm1').waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const [type, name] of [['vpcs', 'PC1'], ['qemu', 'vm1'], ['ethernet_switch', 'Switch1']]) {
    test(`offers exactly the console types /v2/node_types gives ${type}`, async () => {
      await open(name);
      const select = page.getByTestId('field-console_type');
      const offered = await select.evaluate((s) => [...s.options].map((o) => o.value));
      const want = nodeTypes.get(type).console_types.map((c) => c ?? 'none');
      assert.deepEqual(offered, want);
      assert.equal(await select.isDisabled(), want.length < 2, 'a choice only where there is one');
    });
  }

  test('offers start and stop only for types nodedesk runs whose lifecycle is a process', async () => {
    assert.equal(nodeTypes.get('vpcs').lifecycle, 'process');
    assert.equal(nodeTypes.get('vpcs').runs, true);
    await open('PC1');
    await page.getByTestId('node-start').waitFor();
    assert.equal(nodeTypes.get('qemu').runs, true);
    await open('vm1');
    await page.getByTestId('node-start').waitFor();
    assert.equal(nodeTypes.get('iou').runs, true);
    assert.equal(nodeTypes.get('traceng').runs, false);
    await open('r1');
    await page.getByTestId('node-panel').getByText('nodedesk does not run this emulator').waitFor();
    assert.equal(await page.getByTestId('node-start').count(), 0);
    assert.equal(nodeTypes.get('ethernet_switch').lifecycle, 'always_running');
    await open('Switch1');
    await page.getByTestId('node-panel').getByText('Always running').waitFor();
    assert.equal(await page.getByTestId('node-start').count(), 0);
  });

  test('shows the server\'s error about a switch VLAN at that row, and saves nothing', async () => {
    const before = await getNode(ids.sw);
    await open('Switch1');
    const vlan = page.getByTestId('switch-row-vlan');
    await vlan.nth(3).fill('5000');
    await page.getByTestId('node-save').click();
    const err = page.getByTestId('error-ports_mapping');
    await err.waitFor();

    // The same PUT through REST: the server names the field the panel used.
    const pm = before.properties.ports_mapping.map((p, i) => (i === 3 ? { ...p, vlan: 5000 } : p));
    const refused = await rest('PUT', `/projects/${pid}/nodes/${ids.sw}`, { properties: { ports_mapping: pm } });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.field, 'properties.ports_mapping.3.vlan');
    assert.equal(await err.textContent(), refused.body.message);

    // At row 3: its VLAN input is the invalid one, the message just below the row.
    for (let i = 0; i < 5; i++) {
      assert.equal(await vlan.nth(i).getAttribute('aria-invalid'), String(i === 3), `row ${i}`);
    }
    const [row3, row4, eb] = [
      await page.getByTestId('switch-row').nth(3).boundingBox(),
      await page.getByTestId('switch-row').nth(4).boundingBox(),
      await err.boundingBox(),
    ];
    assert.ok(eb.y >= row3.y + row3.height - 1 && eb.y + eb.height <= row4.y + 1, 'the message sits between rows 3 and 4');
    assert.equal(await page.getByTestId('panel-error').count(), 0);
    assert.deepEqual((await getNode(ids.sw)).properties, before.properties);
    await page.getByTestId('node-revert').click();
  });

  test('shows a refused name by the name field', async () => {
    await open('PC1');
    // A name is the server's to check; an empty one is refused, naming the field.
    await page.getByTestId('field-name').fill('');
    await page.getByTestId('node-save').click();
    await page.getByTestId('error-name').waitFor();
    assert.equal(await page.getByTestId('panel-error').count(), 0);
    await page.getByTestId('node-revert').click();
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
