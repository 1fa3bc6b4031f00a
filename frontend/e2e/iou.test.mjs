// IOU in the UI, against a real nodedesk in Debian's chromium: the "New
// IOU template" dialog (its checks, an IOU image picked from the images
// folder, an L2 image read as a switch from its name, the template made
// with GNS3's defaults for it) and a device's panel (its adapters edited,
// their bounds, its startup config saved into its folder); and, on a
// nodedesk of its own, the licence in the settings dialog (saved, read
// again, a refusal shown as the server says it). The image is a few bytes with an ELF header (the
// server lists only ELF files as IOU images), never a real IOU image.
// Nothing here skips: a nodedesk without the routes fails.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, screenshot, until as untilIn, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000; // bound for anything the UI does after a click
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

/** A stand-in L2 image: a 64-bit little-endian ELF header, then padding. */
const IMAGE = 'i86bi-linux-l2-e2e-15.2d.bin';
const IMAGE_BYTES = Buffer.concat([Buffer.from('\x7fELF\x02\x01\x01', 'latin1'), Buffer.alloc(4096 - 7, 0)]);

describe('IOU in the UI', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const pageErrors = [];
  const node = (name) => canvasNode(page, name);
  const iouTemplates = async () => (await rest('GET', '/templates')).body.filter((t) => t.template_type === 'iou');

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    const r = await fetch(`${server.url}/v2/computes/local/iou/images/${IMAGE}`, { method: 'POST', body: IMAGE_BYTES });
    assert.ok(r.ok, `upload of ${IMAGE} answered ${r.status}: ${await r.text()}`);
    const listed = (await rest('GET', '/computes/local/iou/images')).body;
    assert.ok(listed.some((i) => i.filename === IMAGE), `the IOU images list: ${JSON.stringify(listed)}`);
    pid = (await rest('POST', '/projects', { name: 'iou lab' })).body.project_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('canvas-empty').waitFor();
  });

  after(async () => {
    await screenshot(page, 'iou.png');
    await browser?.close();
    await server?.stop();
  });

  test('the template dialog reads an L2 image as a switch and makes the template with its defaults', async () => {
    await page.getByTestId('new-iou-template').click();
    const dialog = page.getByTestId('iou-template-dialog');
    await dialog.waitFor();
    // GNS3's L3 defaults until an image says otherwise.
    assert.equal(await page.getByTestId('ut-layer').inputValue(), 'l3');
    assert.equal(await page.getByTestId('ut-ethernet_adapters').inputValue(), '2');
    assert.equal(await page.getByTestId('ut-serial_adapters').inputValue(), '2');
    assert.equal(await page.getByTestId('ut-ram').inputValue(), '1024');
    assert.equal(await page.getByTestId('ut-nvram').inputValue(), '256');
    await page.getByTestId('ut-submit').click();
    await page.getByTestId('error-ut-image').waitFor();
    assert.match(await page.getByTestId('error-ut-name').textContent(), /Give the template a name/);
    assert.equal((await iouTemplates()).length, 0, 'a refused form makes nothing');

    await until(async () => (await page.getByTestId('ut-image-select').locator('option').allTextContents()).some((o) => o.startsWith(IMAGE)), WAIT, 'the uploaded image is listed');
    await page.getByTestId('ut-image-select').selectOption(IMAGE);
    await until(async () => (await page.getByTestId('ut-layer').inputValue()) === 'l2', WAIT, 'the L2 image is read as a switch');
    assert.equal(await page.getByTestId('ut-ethernet_adapters').inputValue(), '4');
    assert.equal(await page.getByTestId('ut-serial_adapters').inputValue(), '0');
    assert.equal(await page.getByTestId('ut-name').inputValue(), 'i86bi-linux-l2-e2e-15.2d');

    // 4 + 13 adapters is one too many: said at the field, nothing sent.
    await page.getByTestId('ut-serial_adapters').fill('13');
    await page.getByTestId('ut-submit').click();
    assert.match(await page.getByTestId('error-ut-serial_adapters').textContent(), /16 adapters at most/);
    assert.equal((await iouTemplates()).length, 0);
    await page.getByTestId('ut-serial_adapters').fill('0');

    // The image's own memory sizes: RAM and NVRAM cannot be typed.
    await page.getByTestId('ut-use_default_iou_values').check();
    assert.equal(await page.getByTestId('ut-ram').isDisabled(), true);
    assert.equal(await page.getByTestId('ut-nvram').isDisabled(), true);
    await page.getByTestId('ut-use_default_iou_values').uncheck();
    await page.getByTestId('ut-name').fill('IOU L2');
    await screenshot(page, 'iou-template.png');
    await page.getByTestId('ut-submit').click();
    const error = page.getByTestId('ut-error');
    await Promise.race([dialog.waitFor({ state: 'detached' }), error.waitFor()]);
    assert.equal(await error.count(), 0, `the server refused the template: ${await error.textContent().catch(() => '')}`);

    const [tpl, ...more] = await iouTemplates();
    assert.equal(more.length, 0);
    assert.ok(tpl, 'the template exists');
    assert.deepEqual(
      {
        name: tpl.name, compute_id: tpl.compute_id, path: tpl.path, ethernet_adapters: tpl.ethernet_adapters, serial_adapters: tpl.serial_adapters,
        ram: tpl.ram, nvram: tpl.nvram, use_default_iou_values: tpl.use_default_iou_values, l1_keepalives: tpl.l1_keepalives,
        startup_config: tpl.startup_config, private_config: tpl.private_config, console_type: tpl.console_type,
        default_name_format: tpl.default_name_format, symbol: tpl.symbol, category: tpl.category,
      },
      {
        name: 'IOU L2', compute_id: 'local', path: IMAGE, ethernet_adapters: 4, serial_adapters: 0,
        ram: 1024, nvram: 256, use_default_iou_values: false, l1_keepalives: false,
        startup_config: 'iou_l2_base_startup-config.txt', private_config: '', console_type: 'telnet',
        default_name_format: 'IOU{0}', symbol: ':/symbols/multilayer_switch.svg', category: 'switch',
      },
    );
    await page.locator('[data-testid="palette-group-switch"] [data-name="IOU L2"]').waitFor();
    assert.deepEqual(pageErrors, []);
  });

  test("a device's panel edits its adapters while it is stopped, and saves its startup config", async () => {
    const [tpl] = await iouTemplates();
    assert.ok(tpl, 'the template of the test before');
    const r = await rest('POST', `/projects/${pid}/templates/${tpl.template_id}`, { x: 0, y: 0 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    const { node_id: nid, name } = r.body;
    assert.match(name, /^IOU\d+$/);
    await clickNode(page, name);
    await page.getByTestId('iou-properties').waitFor();
    assert.equal(await page.getByTestId('iou-image-select').inputValue(), IMAGE);
    assert.equal(await page.getByTestId('iou-ethernet_adapters').inputValue(), '4');
    assert.equal(await page.getByTestId('iou-serial_adapters').inputValue(), '0');
    assert.equal(await page.getByTestId('iou-locked').count(), 0, 'stopped: nothing locked');

    // Too many adapters: said at the field, nothing sent.
    await page.getByTestId('iou-serial_adapters').fill('13');
    await page.getByTestId('node-save').click();
    await page.getByTestId('error-serial_adapters').waitFor();
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${nid}`)).body.properties.serial_adapters, 0);

    await page.getByTestId('iou-serial_adapters').fill('2');
    await page.getByTestId('node-save').click();
    await until(async () => (await rest('GET', `/projects/${pid}/nodes/${nid}`)).body.properties.serial_adapters === 2, WAIT, 'the serial adapters saved');
    const ports = (await rest('GET', `/projects/${pid}/nodes/${nid}`)).body.ports.length;
    assert.equal(ports, (4 + 2) * 4, 'four ports per adapter');

    const config = page.getByTestId('iou-config-startup');
    await config.locator('summary').click();
    const text = page.getByTestId('iou-config-startup-text');
    await until(async () => (await text.inputValue()).includes(`hostname ${name}\n`), WAIT, "GNS3's base config of its layer, named after the device");
    assert.equal(await page.getByTestId('iou-config-startup-save').isEnabled(), false, 'nothing to save yet');
    const edited = `!\nhostname ${name}\n!\ninterface Ethernet0/0\n no shutdown\n!\nend\n`;
    await text.fill(edited);
    await page.getByTestId('iou-config-startup-save').click();
    await page.getByTestId('toast-success').filter({ hasText: `${name}'s startup config is saved` }).waitFor();
    const saved = await fetch(`${server.url}/v2/projects/${pid}/nodes/${nid}/files/startup-config.cfg`);
    assert.equal(saved.status, 200);
    assert.equal(await saved.text(), edited, 'the file holds what was typed');
    await screenshot(page, 'iou-panel.png');
    assert.deepEqual(pageErrors, []);
  });
});

describe('the IOU licence in the settings dialog', { timeout: 60_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  const pageErrors = [];

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(server.url, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('open-settings').waitFor();
  });

  after(async () => {
    await screenshot(page, 'iou-licence-after.png');
    await browser?.close();
    await server?.stop();
  });

  test('saves the licence, and shows a refusal as the server says it', async () => {
    const licence = '[license]\nnodedesk-e2e = 0123456789abcdef;';
    await page.getByTestId('open-settings').click();
    const dialog = page.getByTestId('settings-dialog');
    await dialog.waitFor();
    const section = page.getByTestId('iou-licence');
    await section.waitFor();
    assert.match(await section.locator('h3').textContent(), /IOU licence/);
    const text = page.getByTestId('licence-text');
    await until(async () => !(await text.isDisabled()), WAIT, 'the licence is read');
    assert.equal(await page.getByTestId('licence-check').isChecked(), true, "GNS3's default: the licence is checked");
    assert.equal(await page.getByTestId('licence-save').isEnabled(), false, 'nothing to save yet');

    await text.fill(`${licence}\r\n\r\n`);
    await page.getByTestId('licence-check').uncheck();
    await page.getByTestId('licence-save').click();
    await page.getByTestId('toast-success').filter({ hasText: 'The licence is saved' }).waitFor();
    assert.deepEqual((await rest('GET', '/iou_license')).body, { iourc_content: licence, license_check: false });
    assert.equal(await page.getByTestId('licence-save').isEnabled(), false, 'saved: nothing left to save');

    // Read again when the dialog opens again.
    await page.getByTestId('settings-close').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('open-settings').click();
    await until(async () => (await text.inputValue()) === licence, WAIT, 'the saved licence is shown');
    assert.equal(await page.getByTestId('licence-check').isChecked(), false);

    // A refusal (400) is the server's sentence, under the box. The server
    // keeps any text today: its answer is stood in for, in the shape of
    // its error body.
    const refusal = 'iourc_content: the licence must start with a [license] section';
    await page.route('**/v2/iou_license', (route) =>
      route.request().method() === 'PUT'
        ? route.fulfill({ status: 400, contentType: 'application/json', body: JSON.stringify({ message: refusal, status: 400, code: 'invalid', field: 'iourc_content' }) })
        : route.continue());
    await text.fill('not a licence');
    await page.getByTestId('licence-save').click();
    assert.equal(await page.getByTestId('licence-error').textContent(), refusal);
    await page.unroute('**/v2/iou_license');
    assert.equal((await rest('GET', '/iou_license')).body.iourc_content, licence, 'the refused text was not kept');
    await screenshot(page, 'iou-licence.png');
    await page.getByTestId('settings-close').click();
    assert.deepEqual(pageErrors, []);
  });
});
