// Remote computes in the UI, against two real nodedesks on loopback: A
// (the one the page shows) and B, added to A as a compute through the
// computes dialog. A VPCS is made on B from A's palette, a link joins it to
// a VPCS on A; B is stopped, and the node and the link show it, from the
// events alone; B comes back on the same store and port, and they heal.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000; // bound for anything the UI does after a click
/** Bound for A to see B go (its notification stream closes at once). */
const LOSS = 20_000;
/** Bound for A to reconnect to B once it is back (A's backoff is at most 30 s). */
const HEAL = 45_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

// Disjoint UDP ranges, and apart from the Go test's (31000-31999).
const A_UDP = '32000-32499';
const B_UDP = '32500-32999';

describe('remote computes in the UI', { timeout: 180_000 }, () => {
  let a;
  let b;
  let browser;
  let page;
  let rest;
  let pid;
  let bHost; // 127.0.0.1:port, kept across B's restart
  let computeId;
  const ids = {};
  const pageErrors = [];
  const node = (name) => canvasNode(page, name);
  const item = (name) => page.locator(`[data-testid="compute-item"][data-name="${name}"]`);
  const local = () => page.locator('[data-testid="compute-item"][data-id="local"]');
  const getNode = async (id) => (await rest('GET', `/projects/${pid}/nodes/${id}`)).body;

  before(async () => {
    a = await startServer({ args: ['--udp-ports', A_UDP] });
    b = await startServer({ args: ['--udp-ports', B_UDP] });
    bHost = new URL(b.url).host;
    rest = restClient(a.url);
    pid = (await rest('POST', '/projects', { name: 'two machines' })).body.project_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${a.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('canvas-empty').waitFor();
  });

  after(async () => {
    await screenshot(page, 'computes.png');
    await browser?.close();
    await b?.stop();
    await a?.stop();
  });

  test('the computes dialog lists local, connected, and no picker is offered for it alone', async () => {
    assert.equal(await page.getByTestId('compute-picker').count(), 0);
    await page.getByTestId('open-computes').click();
    await page.getByTestId('computes-dialog').waitFor();
    await local().waitFor();
    assert.match(await local().getByTestId('compute-state').textContent(), /^Connected/);
    assert.equal(await local().getByTestId('compute-remove').count(), 0, 'local cannot be removed');
  });

  test("adding a compute shows the server's refusal by its field, then adds B, which connects", async () => {
    await page.getByTestId('compute-add').click();
    // A port that is no number: the server's 400 speaks, by the port field.
    await page.getByTestId('compute-name').fill('B');
    await page.getByTestId('compute-host').fill('127.0.0.1');
    await page.getByTestId('compute-port').fill('30 80');
    await page.getByTestId('compute-submit').click();
    const err = page.getByTestId('error-compute-port');
    await err.waitFor();
    assert.match(await err.textContent(), /port/);
    assert.equal(await page.getByTestId('compute-port').getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'computes-form-error.png');
    assert.equal((await rest('GET', '/computes')).body.length, 1, 'nothing was added');

    await page.getByTestId('compute-port').fill(String(new URL(b.url).port));
    await page.getByTestId('compute-submit').click();
    await item('B').waitFor();
    const state = item('B').getByTestId('compute-state');
    // Connected from compute.updated, with no reload.
    await until(async () => (await state.textContent()).startsWith('Connected'), 15_000, 'B connected in the dialog');
    assert.equal(await item('B').getAttribute('data-connected'), 'true');
    computeId = await item('B').getAttribute('data-id');
    const { body: list } = await rest('GET', '/computes');
    assert.deepEqual(list.map((c) => c.compute_id).sort(), [computeId, 'local'].sort());
    assert.equal(list.find((c) => c.name === 'B').port, Number(new URL(b.url).port));
    await screenshot(page, 'computes-dialog.png');
    await page.getByTestId('computes-dialog').getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('computes-dialog').waitFor({ state: 'detached' });
  });

  test('a VPCS placed from the palette with B picked lives on B, and says so', async () => {
    const picker = page.getByTestId('compute-picker');
    await picker.waitFor();
    assert.equal(await picker.inputValue(), 'local', 'local is the default');
    await picker.selectOption(computeId);
    await page.getByTestId('palette-vpcs').click();
    await page.getByTestId('canvas').click({ position: { x: 520, y: 260 } });
    const pc = node('PC1');
    await Promise.race([pc.waitFor(), page.getByTestId('toast-error').waitFor()]);
    assert.equal(await page.getByTestId('toast-error').count(), 0, await page.getByTestId('toast-error').allTextContents().then((t) => t.join('\n')));
    assert.equal(await pc.getAttribute('data-compute'), computeId);
    assert.equal(await pc.getByTestId('node-compute').textContent(), 'on B');
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    assert.equal(nodes.length, 1);
    assert.equal(nodes[0].compute_id, computeId);
    assert.equal(nodes[0].compute_connected, true);
    ids.remote = nodes[0].node_id;
    // The node panel names its compute.
    await pc.click();
    await page.getByTestId('panel-compute').filter({ hasText: 'on B' }).waitFor();

    // Back to local: a VPCS here, linked to the one on B (a tunnel between them).
    await picker.selectOption('local');
    await page.getByTestId('palette-vpcs').click();
    await page.getByTestId('canvas').click({ position: { x: 220, y: 260 } });
    await node('PC2').waitFor();
    ids.local = (await rest('GET', `/projects/${pid}/nodes`)).body.find((n) => n.name === 'PC2').node_id;
    assert.equal((await getNode(ids.local)).compute_id, 'local');
    assert.equal(await node('PC2').getByTestId('node-compute').count(), 0, 'a local node names no compute');
    const l = await rest('POST', `/projects/${pid}/links`, {
      nodes: [{ node_id: ids.local, adapter_number: 0, port_number: 0 }, { node_id: ids.remote, adapter_number: 0, port_number: 0 }],
    });
    assert.equal(l.status, 201, JSON.stringify(l.body));
    ids.link = l.body.link_id;
    await page.locator(`.svelte-flow__edge[data-id="${ids.link}"]`).waitFor({ state: 'attached' });
  });

  test('the VPCS on B starts from its panel', async () => {
    await clickNode(page, 'PC1');
    await page.getByTestId('panel-node-name').filter({ hasText: 'PC1' }).waitFor();
    await page.getByTestId('node-start').click();
    await until(
      async () => (await node('PC1').getAttribute('data-status')) === 'started' || (await page.getByTestId('toast-error').count()) > 0,
      15_000, 'PC1 started',
    );
    assert.deepEqual(await page.getByTestId('toast-error').allTextContents(), []);
    assert.equal(await node('PC1').getAttribute('data-status'), 'started');
    assert.equal((await getNode(ids.remote)).status, 'started');
  });

  test('B stopping shows on its node and the link, and leaves the local node alone', async () => {
    await b.stop({ keepStore: true });
    const pc = node('PC1');
    await until(async () => (await pc.getAttribute('data-unreachable')) === 'true', LOSS, 'PC1 drawn unreachable');
    assert.equal(await pc.getByTestId('node-unreachable').textContent(), 'compute B not connected');
    assert.match(await pc.getAttribute('title'), /^PC1: compute B not connected/);
    assert.equal(await pc.getAttribute('data-status'), 'stopped', 'the server shows a lost node stopped');
    // Its actions are off, and the panel says why.
    await page.getByTestId('panel-unreachable').waitFor();
    assert.equal(await page.getByTestId('node-start').isDisabled(), true);
    assert.equal(await page.getByTestId('node-console').isDisabled(), true);
    // The link across is drawn as unreachable.
    const path = page.locator(`.svelte-flow__edge[data-id="${ids.link}"] .svelte-flow__edge-path`);
    await until(async () => /unreachable/.test((await path.getAttribute('class')) ?? ''), LOSS, 'the link drawn unreachable');
    // The local node is as it was.
    assert.equal(await node('PC2').getAttribute('data-unreachable'), 'false');
    // The sidebar and the dialog say B is not connected, and why.
    await page.getByTestId('computes-lost').waitFor();
    await page.getByTestId('open-computes').click();
    await until(async () => (await item('B').getByTestId('compute-state').textContent()).startsWith('Not connected'), WAIT, 'B not connected in the dialog');
    await page.getByTestId('computes-dialog').getByRole('button', { name: 'Done' }).click();
    await screenshot(page, 'computes-lost.png');

    // B stays choosable, says it is not connected, and a node asked of it is the server's to refuse.
    const picker = page.getByTestId('compute-picker');
    assert.equal(await picker.locator(`option[value="${computeId}"]`).textContent(), 'B (not connected)');
    await picker.selectOption(computeId);
    await page.getByTestId('palette-vpcs').click();
    await page.getByTestId('canvas').click({ position: { x: 520, y: 460 } });
    const refusal = page.getByTestId('toast-error').filter({ hasText: 'Could not add a VPCS' });
    await refusal.waitFor();
    assert.match(await refusal.textContent(), /^Could not add a VPCS: \S/);
    assert.equal((await rest('GET', `/projects/${pid}/nodes`)).body.length, 2, 'no node was made');
    await refusal.getByRole('button').click();
    await picker.selectOption('local');
  });

  test('B back on the same store and port: the node and the link return to normal', async () => {
    b = await startServer({ args: ['--udp-ports', B_UDP], listen: bHost, dir: b.dir });
    const pc = node('PC1');
    await until(async () => (await pc.getAttribute('data-unreachable')) === 'false', HEAL, 'PC1 back to normal');
    assert.equal(await pc.getByTestId('node-compute').textContent(), 'on B');
    await until(async () => (await pc.getAttribute('data-status')) === 'started', WAIT, 'PC1 shows its recorded status again');
    const path = page.locator(`.svelte-flow__edge[data-id="${ids.link}"] .svelte-flow__edge-path`);
    await until(async () => !/unreachable/.test((await path.getAttribute('class')) ?? ''), WAIT, 'the link drawn as usual');
    await clickNode(page, 'PC1');
    await page.getByTestId('panel-node-name').filter({ hasText: 'PC1' }).waitFor();
    assert.equal(await page.getByTestId('panel-unreachable').count(), 0);
    assert.equal(await page.getByTestId('node-stop').isDisabled(), false);
    assert.equal(await page.getByTestId('computes-lost').count(), 0);
  });

  test('renaming B in the dialog renames it on its node, live', async () => {
    await page.getByTestId('open-computes').click();
    await item('B').getByTestId('compute-edit').click();
    assert.equal(await page.getByTestId('compute-password').inputValue(), '', 'a password is never shown');
    await page.getByTestId('compute-name').fill('Bee');
    await page.getByTestId('compute-submit').click();
    await item('Bee').waitFor();
    assert.equal((await rest('GET', `/computes/${computeId}`)).body.name, 'Bee');
    await node('PC1').getByTestId('node-compute').filter({ hasText: 'on Bee' }).waitFor();
    assert.match(await item('Bee').getByTestId('compute-state').textContent(), /^Connected/, 'a rename does not disconnect');
  });

  test("removing B is refused while a node lives there, in the server's words; then it goes", async () => {
    const B = 'Bee';
    await item(B).getByTestId('compute-remove').click();
    await page.getByRole('button', { name: 'Remove compute' }).click();
    const err = page.getByTestId('computes-error');
    await err.waitFor();
    assert.match(await err.textContent(), /^Could not remove Bee: 1 node\(s\) live on compute Bee \(PC1 is one\)/);
    assert.equal((await rest('GET', '/computes')).body.length, 2);
    // Without its node, B goes, and the picker with it.
    assert.equal((await rest('DELETE', `/projects/${pid}/nodes/${ids.remote}`)).status, 204);
    await item(B).getByTestId('compute-remove').click();
    await page.getByRole('button', { name: 'Remove compute' }).click();
    await item(B).waitFor({ state: 'detached' });
    assert.deepEqual((await rest('GET', '/computes')).body.map((c) => c.compute_id), ['local']);
    await page.getByTestId('computes-dialog').getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('compute-picker').waitFor({ state: 'detached' });
  });

  test('no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
