// Dynamips routers in the UI, against a real nodedesk and a real
// dynamips in Debian's chromium: the "New IOS router template" dialog (an
// IOS image uploaded, its platform read from its name, the template made
// with the platform's defaults), a router's panel (its slot menus from the
// server's catalogue, a slot changed), a running router without an
// idle-PC value (the warning, and "Find idle-PC" keeping a value that
// works), and a new router's startup config edited in its panel. The image is the free stand-in of ../shared/fake-ios (never a
// real IOS image); dynamips is the one make builds (NODEDESK_DYNAMIPS).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, restClient, startServer, screenshot, until as untilIn, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000; // bound for anything the UI does after a click
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The stand-in c7200 image, under the name a real image would have, so
 * that the dialog reads its platform from it. */
function fakeImage() {
  const dirs = [process.env.NODEDESK_FAKE_IOS, path.join(repo, '..', 'shared', 'fake-ios')].filter(Boolean);
  const dir = dirs.find((d) => existsSync(path.join(d, 'fake-ios-c7200.image')));
  assert.ok(dir, `the stand-in IOS image is in none of ${dirs.join(', ')}: set NODEDESK_FAKE_IOS`);
  return { name: 'c7200-fakeios-mz.e2e.image', mimeType: 'application/octet-stream', buffer: readFileSync(path.join(dir, 'fake-ios-c7200.image')) };
}
const dynamips = process.env.NODEDESK_DYNAMIPS ?? path.join(repo, 'build', 'dynamips', 'dynamips');

describe('Dynamips routers in the UI', { timeout: 240_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const pageErrors = [];
  const node = (name) => canvasNode(page, name);

  before(async () => {
    assert.ok(existsSync(dynamips), `dynamips is not built at ${dynamips}: run make dynamips`);
    server = await startServer({ env: { NODEDESK_DYNAMIPS: dynamips } });
    rest = restClient(server.url);
    const t = (await rest('GET', '/node_types')).body.find((x) => x.node_type === 'dynamips');
    assert.equal(t?.runs, true, 'GET /v2/node_types says nodedesk runs Dynamips nodes');
    pid = (await rest('POST', '/projects', { name: 'ios lab' })).body.project_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('canvas-empty').waitFor();
  });

  after(async () => {
    await screenshot(page, 'dynamips.png');
    if (rest && pid) await rest('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  test('the IOS template dialog uploads an image, reads its platform and makes the template', async () => {
    await page.getByTestId('new-ios-template').click();
    const dialog = page.getByTestId('ios-template-dialog');
    await dialog.waitFor();
    await page.getByTestId('it-submit').click();
    await page.getByTestId('error-it-image').waitFor();
    assert.equal((await rest('GET', '/templates')).body.filter((t) => t.template_type === 'dynamips').length, 0, 'a refused form makes nothing');

    const image = fakeImage();
    await page.getByTestId('it-image-file').setInputFiles(image);
    await until(async () => (await page.getByTestId('it-image-select').inputValue()) === image.name, 15_000, 'the uploaded image is picked');
    await until(async () => (await page.getByTestId('it-platform').inputValue()) === 'c7200', WAIT, 'the platform is read from the name');
    assert.equal(await page.getByTestId('it-name').inputValue(), 'c7200');
    await screenshot(page, 'dynamips-template.png');
    await page.getByTestId('it-submit').click();
    // Skipped here: the next test finds the idle PC of a running router
    // (templates.test.mjs lets the template's search run).
    await page.getByTestId('idlepc-skip').click();
    await dialog.waitFor({ state: 'detached' });
    const tpl = (await rest('GET', '/templates')).body.find((t) => t.template_type === 'dynamips');
    assert.ok(tpl, 'the template exists');
    assert.equal(tpl.platform, 'c7200');
    assert.equal(tpl.image, image.name);
    assert.equal(tpl.ram, 512, "the platform's default RAM, as GNS3 fills it");
  });

  test("a router's panel offers what fits its slots and the idle-PC finder while it runs without one", async () => {
    const tpl = (await rest('GET', '/templates')).body.find((t) => t.template_type === 'dynamips');
    const r = await rest('POST', `/projects/${pid}/templates/${tpl.template_id}`, { x: 0, y: 0 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const nid = r.body.node_id;
    const name = r.body.name;
    await clickNode(page, name);
    const panel = page.getByTestId('dynamips-properties');
    await panel.waitFor();
    assert.equal(await page.getByTestId('dynamips-platform').textContent(), 'c7200');

    // Slot 1 takes the c7200's port adapters: pick one and save.
    const slot1 = page.getByTestId('dynamips-slot1');
    const choices = await slot1.locator('option').allTextContents();
    assert.ok(choices.includes('PA-FE-TX') && !choices.includes('NM-1FE-TX'), `slot 1's choices: ${choices}`);
    await slot1.selectOption('PA-FE-TX');
    await page.getByTestId('node-save').click();
    await until(async () => (await rest('GET', `/projects/${pid}/nodes/${nid}`)).body.properties.slot1 === 'PA-FE-TX', WAIT, 'slot 1 saved');
    const ports = (await rest('GET', `/projects/${pid}/nodes/${nid}`)).body.ports.map((p) => p.short_name);
    assert.ok(ports.includes('f1/0'), `the router's ports: ${ports}`);

    // Running without an idle PC: warned, then found and kept.
    assert.equal(await page.getByTestId('dynamips-idlepc-warning').count(), 0, 'no warning while stopped');
    const started = await rest('POST', `/projects/${pid}/nodes/${nid}/start`, {});
    assert.equal(started.status, 200, JSON.stringify(started.body));
    await page.getByTestId('dynamips-idlepc-warning').waitFor();
    assert.ok(await page.getByTestId('dynamips-locked').isVisible(), 'the hardware is locked while it runs');
    await screenshot(page, 'dynamips-idlepc.png');
    await page.getByTestId('dynamips-find-idlepc').click();
    await page.getByTestId('dynamips-idlepc-warning').waitFor({ state: 'detached', timeout: 120_000 });
    const idlepc = (await rest('GET', `/projects/${pid}/nodes/${nid}`)).body.properties.idlepc;
    assert.match(idlepc, /^0x[0-9a-f]+$/i, `the idle PC kept: ${idlepc}`);
    assert.equal(await page.getByTestId('dynamips-idlepc').inputValue(), idlepc, 'the panel shows it');
    const stopped = await rest('POST', `/projects/${pid}/nodes/${nid}/stop`, {});
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    assert.deepEqual(pageErrors, []);
  });

  test("a new router's panel shows the config it will start with, and saves an edit to it", async () => {
    const tpl = (await rest('GET', '/templates')).body.find((t) => t.template_type === 'dynamips');
    const r = await rest('POST', `/projects/${pid}/templates/${tpl.template_id}`, { x: 200, y: 0 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const { node_id: nid, name } = r.body;
    const file = `/projects/${pid}/nodes/${nid}/files/configs/i${r.body.properties.dynamips_id}_startup-config.cfg`;
    await clickNode(page, name);
    await page.getByTestId('dynamips-config').locator('summary').click();
    const text = page.getByTestId('dynamips-config-text');
    await until(async () => (await text.inputValue()).includes(`hostname ${name}\n`), WAIT, "GNS3's base config, named after the router");
    assert.match(await text.inputValue(), /line con 0\n privilege level 15\n no login\n exec-timeout 0 0\n/);
    assert.equal(await page.getByTestId('dynamips-config-save').isEnabled(), false, 'nothing to save yet');

    const edited = `!\nhostname ${name}\n!\ninterface FastEthernet0/0\n ip address 192.0.2.1 255.255.255.0\n no shutdown\n!\nend\n`;
    await text.fill(edited);
    await page.getByTestId('dynamips-config-save').click();
    await page.getByTestId('toast-success').filter({ hasText: `${name}'s startup config is saved` }).waitFor();
    const saved = await fetch(`${server.url}/v2${file}`);
    assert.equal(saved.status, 200);
    assert.equal(await saved.text(), edited, 'the file holds what was typed');
    assert.equal(await page.getByTestId('dynamips-config-save').isEnabled(), false, 'saved: nothing left to save');

    // While it runs, the text is its NVRAM's business: read-only, and said so.
    assert.equal((await rest('POST', `/projects/${pid}/nodes/${nid}/start`, {})).status, 200);
    await page.getByTestId('dynamips-config-running').waitFor();
    assert.equal(await text.isDisabled(), true, 'read-only while it runs');
    await screenshot(page, 'dynamips-config.png');
    assert.equal((await rest('POST', `/projects/${pid}/nodes/${nid}/stop`, {})).status, 200);
    await page.getByTestId('dynamips-config-running').waitFor({ state: 'detached' });
    await until(async () => !(await text.isDisabled()), WAIT, 'editable again once stopped');
    assert.deepEqual(pageErrors, []);
  });
});
