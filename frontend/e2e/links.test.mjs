// A link's traffic from the UI: suspend it, filter it, capture it; the map
// marks each state, follows a change made by another client, and the
// server's errors show by the field they name.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, clickNode } from './harness.mjs';

const WAIT = 5_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

describe('link traffic from the UI', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  let lid;
  const pageErrors = [];
  const getLink = async () => (await rest('GET', `/projects/${pid}/links/${lid}`)).body;
  const marks = () => page.locator(`[data-testid="link-marks"][data-link-id="${lid}"]`);
  const panel = () => page.getByTestId('link-panel');

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'traffic lab' })).body.project_id;
    const { body: templates } = await rest('GET', '/templates');
    const vpcs = templates.find((t) => t.template_type === 'vpcs').template_id;
    const a = (await rest('POST', `/projects/${pid}/templates/${vpcs}`, { x: 0, y: 0 })).body.node_id;
    const b = (await rest('POST', `/projects/${pid}/templates/${vpcs}`, { x: 360, y: 0 })).body.node_id;
    const made = await rest('POST', `/projects/${pid}/links`, {
      nodes: [{ node_id: a, adapter_number: 0, port_number: 0 }, { node_id: b, adapter_number: 0, port_number: 0 }],
    });
    assert.equal(made.status, 201);
    lid = made.body.link_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.locator(`.svelte-flow__edge[data-id="${lid}"]`).waitFor({ state: 'attached' }); // a level line: no height
    // Select the link: a click on its line, halfway between the two hosts.
    const box = await page.locator(`.svelte-flow__edge[data-id="${lid}"] path`).first().boundingBox();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await panel().waitFor();
    await page.getByTestId('filter-packet_loss').waitFor(); // the server's filters have loaded
  });

  after(async () => {
    await screenshot(page, 'links.png');
    await browser?.close();
    await server?.stop();
  });

  test('a plain link has no mark', async () => {
    assert.equal(await marks().count(), 0);
    assert.equal(await page.getByTestId('link-suspend').textContent().then((t) => t.trim()), 'Suspend traffic');
  });

  test('suspends the link from its panel: the map marks it and the server stores it', async () => {
    await page.getByTestId('link-suspend').click();
    await marks().and(page.locator('[data-suspended="true"]')).waitFor();
    assert.match(await marks().getAttribute('title'), /Suspended: no traffic crosses this link/);
    assert.equal((await getLink()).suspend, true);
    assert.match(await page.locator(`.svelte-flow__edge[data-id="${lid}"] .svelte-flow__edge-path`).getAttribute('class'), /suspended/);
    await panel().getByTestId('state-suspended').waitFor();

    await page.getByTestId('link-suspend').filter({ hasText: 'Resume traffic' }).click();
    await marks().waitFor({ state: 'detached' });
    assert.equal((await getLink()).suspend, false);
  });

  test('sets a packet_loss filter, stored by the server and marked on the map', async () => {
    await page.getByTestId('filter-packet_loss-0').fill('30');
    await page.getByTestId('filters-apply').click();
    await until(async () => JSON.stringify((await getLink()).filters) === '{"packet_loss":[30]}', WAIT, 'the filter stored');
    await marks().and(page.locator('[data-filtered="true"]')).waitFor();
    assert.match(await marks().getAttribute('title'), /Filtered: packet loss 30/);
    assert.equal(await page.getByTestId('filters-apply').isDisabled(), true, 'nothing left to apply');
  });

  test('a bad value shows the server\'s error by its input, and nothing is stored', async () => {
    await page.getByTestId('filter-packet_loss-0').fill('300');
    await page.getByTestId('filters-apply').click();
    await page.getByTestId('error-filters-packet_loss-0').filter({ hasText: 'from 0 to 100' }).waitFor();
    assert.equal(await page.getByTestId('filter-packet_loss-0').getAttribute('aria-invalid'), 'true');
    assert.deepEqual((await getLink()).filters, { packet_loss: [30] });
    await page.getByTestId('filters-revert').click();
    assert.equal(await page.getByTestId('filter-packet_loss-0').inputValue(), '30');
    assert.equal(await page.getByTestId('error-filters-packet_loss-0').count(), 0);
  });

  test('follows a change made by another client', async () => {
    const r = await rest('PUT', `/projects/${pid}/links/${lid}`, { filters: { packet_loss: [30], delay: [100, 10] }, suspend: true });
    assert.equal(r.status, 200);
    await marks().and(page.locator('[data-suspended="true"][data-filtered="true"]')).waitFor({ timeout: 2000 });
    // The panel's untouched form follows too.
    assert.equal(await page.getByTestId('filter-delay-0').inputValue(), '100');
    assert.equal(await page.getByTestId('filter-delay-1').inputValue(), '10');
    await rest('PUT', `/projects/${pid}/links/${lid}`, { suspend: false });
  });

  test('clears a filter', async () => {
    await page.getByTestId('filter-clear-delay').click();
    await page.getByTestId('filter-clear-packet_loss').click();
    await page.getByTestId('filters-apply').click();
    await until(async () => JSON.stringify((await getLink()).filters) === '{}', WAIT, 'the filters cleared');
    await marks().waitFor({ state: 'detached' });
  });

  test('a capture file name with a folder shows the server\'s error by the name', async () => {
    await page.getByTestId('capture-file-name').fill('../x.pcap');
    await page.getByTestId('capture-start').click();
    await page.getByTestId('error-capture').filter({ hasText: 'without a folder' }).waitFor();
    assert.equal((await getLink()).capturing, false);
    await page.getByTestId('capture-file-name').fill('');
  });

  test('starts a capture, shows its file and stream, and stops it', async () => {
    const placeholder = await page.getByTestId('capture-file-name').getAttribute('placeholder');
    await page.getByTestId('capture-start').click();
    await page.getByTestId('capture-status').waitFor();
    const l = await getLink();
    assert.equal(l.capturing, true);
    assert.equal(l.capture_file_name, placeholder, 'the placeholder was the server\'s default name');
    assert.equal(await page.getByTestId('capture-file-name-shown').textContent(), l.capture_file_name);
    assert.equal(await page.getByTestId('capture-path').textContent(), l.capture_file_path);
    await marks().and(page.locator('[data-capturing="true"]')).waitFor();
    assert.match(await marks().getAttribute('title'), /Capturing to /);

    // The browser's way to the capture: the live pcap stream.
    const href = await page.getByTestId('capture-download').getAttribute('href');
    assert.equal(href, `${server.url}/v2/projects/${pid}/links/${lid}/pcap`);
    const ctl = new AbortController();
    const res = await fetch(href, { signal: ctl.signal });
    assert.equal(res.status, 200);
    const reader = res.body.getReader();
    const { value } = await reader.read();
    ctl.abort();
    assert.equal(Buffer.from(value.subarray(0, 4)).toString('hex'), 'd4c3b2a1', 'a pcap file header');

    await page.getByTestId('capture-stop').click();
    await page.getByTestId('capture-start').waitFor();
    assert.equal((await getLink()).capturing, false);
    assert.equal(await page.getByTestId('capture-last').locator('.mono').textContent(), l.capture_file_path);
    await marks().waitFor({ state: 'detached' });
  });

  test('each panel says what the server does with frames: the switch switches, NAT is a gateway, ATM switches cells, QEMU runs, TraceNG is not run (no Start)', async () => {
    const { body: templates } = await rest('GET', '/templates');
    const tid = (type) => templates.find((t) => t.template_type === type).template_id;
    const sw = (await rest('POST', `/projects/${pid}/templates/${tid('ethernet_switch')}`, { x: 0, y: 110 })).body;
    const nat = (await rest('POST', `/projects/${pid}/templates/${tid('nat')}`, { x: 360, y: 110 })).body;
    const atm = (await rest('POST', `/projects/${pid}/templates/${tid('atm_switch')}`, { x: 180, y: 110 })).body;
    await clickNode(page, sw.name);
    assert.match(await page.getByTestId('node-traffic').textContent(), /^Always running\. It switches frames between its ports, per VLAN/);
    await clickNode(page, nat.name);
    assert.match(await page.getByTestId('node-traffic').textContent(), /It is a gateway to the host network/);
    // Its one setting: the host's loopback, off until the box is ticked and saved.
    const loopback = page.getByLabel('Let the lab reach services that listen only on this computer (127.0.0.1)');
    assert.equal(await loopback.getAttribute('data-testid'), 'field-allow_host_loopback');
    assert.equal(await loopback.isChecked(), false);
    await loopback.check();
    await page.getByTestId('node-save').click();
    await until(async () => (await rest('GET', `/projects/${pid}/nodes/${nat.node_id}`)).body.properties.allow_host_loopback === true, WAIT, 'allow_host_loopback saved');
    await clickNode(page, atm.name);
    assert.match(await page.getByTestId('node-traffic').textContent(), /^Always running\. It switches ATM cells between its ports, by VPI and VCI/);
    const qemu = (await rest('POST', `/projects/${pid}/nodes`, { node_type: 'qemu', x: 0, y: 230 })).body;
    await clickNode(page, qemu.name);
    await page.getByTestId('node-start').waitFor();
    assert.equal(await page.getByTestId('node-traffic').count(), 0, 'a node nodedesk runs has Start instead');
    const r = (await rest('POST', `/projects/${pid}/nodes`, { node_type: 'traceng', compute_id: 'local', x: 360, y: 230 })).body;
    assert.ok(r.name, JSON.stringify(r));
    await clickNode(page, r.name);
    assert.match(await page.getByTestId('node-traffic').textContent(), /^nodedesk does not run this emulator/);
    assert.equal(await page.getByTestId('node-start').count(), 0, 'no Start for a node nodedesk does not run');
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
