// The UI against a real nodedesk, in Debian's chromium: what a user does
// in a lab, checked on the screen and through the REST API.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser, restClient, startServer, screenshot, ARTIFACTS, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000; // bound for anything the UI does after a click

describe('nodedesk UI', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  const pageErrors = [];
  const state = { pid: null, pcId: null, swId: null };

  const node = (name) => canvasNode(page, name);

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(server.url, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('start-screen').waitFor();
  });

  after(async () => {
    await screenshot(page, 'final.png');
    await browser?.close();
    await server?.stop();
  });

  test('creates a project', async () => {
    await page.getByTestId('new-project').click();
    await page.getByTestId('project-dialog-input').fill('e2e lab');
    await page.getByTestId('project-dialog-submit').click();
    await page.getByTestId('project-title').filter({ hasText: 'e2e lab' }).waitFor();
    const { body: projects } = await rest('GET', '/projects');
    const p = projects.find((x) => x.name === 'e2e lab');
    assert.ok(p, 'the project exists on the server');
    assert.equal(p.status, 'opened');
    state.pid = p.project_id;
    await page.getByTestId('canvas-empty').waitFor(); // the empty state says what to do
  });

  test('adds a VPCS (click to place) and an Ethernet switch (drag and drop) from the palette', async () => {
    const canvas = page.getByTestId('canvas');
    await page.getByTestId('palette-vpcs').click();
    await page.getByTestId('placing-hint').waitFor();
    await canvas.click({ position: { x: 200, y: 200 } });
    await node('PC1').waitFor();

    await page.getByTestId('palette-ethernet_switch').dragTo(canvas, { targetPosition: { x: 480, y: 260 } });
    await node('Switch1').waitFor();

    const { body: nodes } = await rest('GET', `/projects/${state.pid}/nodes`);
    const pc = nodes.find((n) => n.name === 'PC1');
    const sw = nodes.find((n) => n.name === 'Switch1');
    assert.equal(pc?.node_type, 'vpcs');
    assert.equal(sw?.node_type, 'ethernet_switch');
    assert.ok(sw.x - pc.x > 100, `the switch was dropped right of the PC (pc.x=${pc.x}, sw.x=${sw.x})`);
    state.pcId = pc.node_id;
    state.swId = sw.node_id;
    assert.equal(await node('PC1').getAttribute('data-status'), 'stopped');
    assert.equal(await node('Switch1').getAttribute('data-status'), 'started');
  });

  test("draws each node with its symbol's image, the file the server serves", async () => {
    for (const [name, symbol, size] of [['PC1', ':/symbols/vpcs_guest.svg', [65, 59]], ['Switch1', ':/symbols/ethernet_switch.svg', [72, 32]]]) {
      const img = node(name).getByTestId('node-symbol');
      assert.equal(await img.getAttribute('data-symbol'), symbol);
      assert.equal(await img.getAttribute('data-builtin'), 'true');
      const shown = await img.evaluate(async (el) => {
        await el.decode();
        const r = el.getBoundingClientRect();
        return { natural: [el.naturalWidth, el.naturalHeight], drawn: [r.width, r.height], src: el.src };
      });
      assert.deepEqual(shown.natural, size, `${name}'s image has its symbol's size`);
      assert.ok(shown.drawn[0] > 20 && shown.drawn[1] > 10, `${name}'s image is drawn (${shown.drawn})`);
      const res = await fetch(`${server.url}/v2/symbols/${encodeURIComponent(symbol)}/raw`);
      assert.equal(res.status, 200);
      assert.equal(decodeURIComponent(shown.src.slice(shown.src.indexOf(',') + 1)), await res.text(), `${name}'s image is the server's ${symbol}`);
    }
  });

  test('bulk-edits two switch ports to dot1q VLAN 20 and saves them', async () => {
    await clickNode(page, 'Switch1');
    const panel = page.getByTestId('node-panel');
    await panel.waitFor();
    const rows = page.getByTestId('switch-row-select');
    await rows.nth(1).check();
    await rows.nth(2).check();
    await page.getByTestId('switch-bulk-type').selectOption('dot1q');
    await page.getByTestId('switch-bulk-vlan').fill('20');
    await page.getByTestId('switch-bulk-apply').click();
    assert.equal(await page.getByTestId('switch-row-type').nth(1).inputValue(), 'dot1q');
    assert.equal(await page.getByTestId('switch-row-vlan').nth(2).inputValue(), '20');
    await page.getByTestId('node-save').click();
    await panel.getByText('All changes saved').waitFor();

    const { body: sw } = await rest('GET', `/projects/${state.pid}/nodes/${state.swId}`);
    const pm = sw.properties.ports_mapping;
    assert.equal(pm.length, 8);
    assert.deepEqual(pm.map((p) => [p.port_number, p.type, p.vlan]).slice(0, 4), [
      [0, 'access', 1],
      [1, 'dot1q', 20],
      [2, 'dot1q', 20],
      [3, 'access', 1],
    ]);
  });

  test('links the PC to a switch port through the link dialog', async () => {
    await page.getByTestId('add-link').click();
    await page.getByTestId('link-dialog').waitFor();
    await page.getByTestId('link-a-node').selectOption({ label: 'PC1' });
    await page.getByTestId('link-b-node').selectOption({ label: 'Switch1' });
    await page.getByTestId('link-b-port').selectOption({ label: 'Ethernet3' });
    await page.getByTestId('link-create').click();
    await page.getByTestId('link-dialog').waitFor({ state: 'detached' });
    await page.locator('.svelte-flow__edge').first().waitFor();
    const { body: links } = await rest('GET', `/projects/${state.pid}/links`);
    assert.equal(links.length, 1);
    const ends = Object.fromEntries(links[0].nodes.map((e) => [e.node_id, e.port_number]));
    assert.deepEqual(ends, { [state.pcId]: 0, [state.swId]: 3 });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.waitForTimeout(300); // let the selection transitions end
    await page.screenshot({ path: path.join(ARTIFACTS, 'topology.png') });
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.waitForTimeout(300); // let the colour transitions end
    await page.screenshot({ path: path.join(ARTIFACTS, 'topology-dark.png') });
    await page.emulateMedia({ colorScheme: 'light' });
  });

  test('shows a change made through REST within a second', async () => {
    const put = await rest('PUT', `/projects/${state.pid}/nodes/${state.pcId}`, { name: 'web1', x: 120 });
    assert.equal(put.status, 200);
    const t0 = Date.now();
    await node('web1').waitFor({ timeout: 1000 });
    const box = await node('web1').boundingBox();
    assert.ok(box, 'the renamed node is on the canvas');
    assert.ok(Date.now() - t0 < 1000);
    // Made elsewhere, the project list follows too.
    await rest('PUT', `/projects/${state.pid}`, { name: 'e2e lab renamed' });
    await page.getByTestId('project-title').filter({ hasText: 'e2e lab renamed' }).waitFor({ timeout: 1000 });
  });

  test('shows a validation error next to the field and changes nothing', async () => {
    const { body: before } = await rest('GET', `/projects/${state.pid}/nodes/${state.pcId}`);
    await clickNode(page, 'web1');
    await page.getByTestId('panel-node-name').filter({ hasText: 'web1' }).waitFor();
    const consoleInput = page.getByTestId('field-console');
    await consoleInput.fill('80');
    await page.getByTestId('field-label').fill('edited label');
    await page.getByTestId('node-save').click();
    const err = page.getByTestId('error-console');
    await err.waitFor();
    assert.match(await err.textContent(), /Console port 80/);
    // The message sits by the console input, not at the top of the panel.
    const [eb, ib] = [await err.boundingBox(), await consoleInput.boundingBox()];
    assert.ok(eb.y > ib.y && eb.y - (ib.y + ib.height) < 40, 'the error is just below the console input');
    assert.equal(await page.getByTestId('panel-error').count(), 0);
    // The user's edits stay in the form; the server has the node as before.
    assert.equal(await consoleInput.inputValue(), '80');
    assert.equal(await page.getByTestId('field-label').inputValue(), 'edited label');
    const { body: after } = await rest('GET', `/projects/${state.pid}/nodes/${state.pcId}`);
    assert.equal(after.console, before.console);
    assert.equal(after.label.text, before.label.text);
    await page.getByTestId('node-revert').click();
    assert.equal(await consoleInput.inputValue(), String(before.console));
  });

  test('deletes the selected node with the Delete key, with its links', async () => {
    await clickNode(page, 'web1'); // focus is on the canvas, not in the panel
    await page.getByTestId('panel-node-name').filter({ hasText: 'web1' }).waitFor();
    await page.keyboard.press('Delete');
    await node('web1').waitFor({ state: 'detached' });
    const gone = await rest('GET', `/projects/${state.pid}/nodes/${state.pcId}`);
    assert.equal(gone.status, 404);
    const { body: links } = await rest('GET', `/projects/${state.pid}/links`);
    assert.equal(links.length, 0, 'the link went with the node');
    assert.equal(await node('Switch1').count(), 1);
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
