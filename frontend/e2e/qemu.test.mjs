// QEMU in the UI, against a real nodedesk in Debian's chromium: the "New
// QEMU template" dialog (its checks, an image uploaded with a progress bar,
// the template under its category in the palette), the palette's groups,
// an appliance import, and the node panel of a QEMU node (its properties
// shown and edited while stopped, its VNC tab) and a running guest's screen
// in the VNC tab: a real QEMU guest under TCG. Nothing here skips: a
// nodedesk without the routes or the QEMU runner fails.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { launchBrowser, restClient, startServer, screenshot, until as untilIn, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000; // bound for anything the UI does after a click
/** Bound for a QEMU guest (TCG) to start and show its screen. */
const BOOT = 30_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

/** A small fake disk image: its bytes do not matter to the dialog. */
const IMAGE = { name: 'e2e-tiny.img', mimeType: 'application/octet-stream', buffer: Buffer.alloc(256 * 1024, 0x5a) };

describe('QEMU in the UI', { timeout: 180_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const pageErrors = [];
  const palette = (group, name) => page.locator(`[data-testid="palette-group-${group}"] [data-name="${name}"]`);
  const node = (name) => canvasNode(page, name);
  /** Uploads bytes as an image of the QEMU images folder, as the dialog does. */
  const upload = async (name, bytes) => {
    const r = await fetch(`${server.url}/v2/computes/local/qemu/images/${name}`, { method: 'POST', body: bytes });
    assert.ok(r.ok, `upload of ${name} answered ${r.status}: ${await r.text()}`);
  };

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    const qemu = (await rest('GET', '/node_types')).body.find((t) => t.node_type === 'qemu');
    assert.equal(qemu?.runs, true, 'GET /v2/node_types says nodedesk runs QEMU nodes');
    pid = (await rest('POST', '/projects', { name: 'qemu lab' })).body.project_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('canvas-empty').waitFor();
  });

  after(async () => {
    await screenshot(page, 'qemu.png');
    if (rest && pid) await rest('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  test('the template dialog says by field what cannot be sent, and makes nothing', async () => {
    const before = (await rest('GET', '/templates')).body.length;
    await page.getByTestId('new-qemu-template').click();
    const dialog = page.getByTestId('qemu-template-dialog');
    await dialog.waitFor();
    await page.getByTestId('qt-ram').fill('lots');
    await page.getByTestId('qt-submit').click();
    await page.getByTestId('error-qt-name').waitFor();
    assert.match(await page.getByTestId('error-qt-hda').textContent(), /Pick the disk image/);
    assert.match(await page.getByTestId('error-qt-ram').textContent(), /whole number of megabytes/);
    assert.equal(await page.getByTestId('qt-ram').getAttribute('aria-invalid'), 'true');
    // The advanced choice boots a kernel: then the kernel is what is missing.
    await page.getByTestId('qt-advanced').locator('summary').click();
    await page.getByTestId('qt-boot-kernel').check();
    await page.getByTestId('qt-submit').click();
    await page.getByTestId('error-qt-kernel').waitFor();
    assert.equal(await page.getByTestId('qt-hda-select').count(), 0, 'no disk is asked for a kernel boot');
    await screenshot(page, 'qemu-template-errors.png');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await rest('GET', '/templates')).body.length, before, 'nothing was made');
  });

  test('makes a QEMU template with an uploaded image, and shows it in the palette under its category', async () => {
    await page.getByTestId('new-qemu-template').click();
    await page.getByTestId('qemu-template-dialog').waitFor();
    await page.getByTestId('qt-name').fill('Tiny Router');
    await page.getByTestId('qt-category').selectOption('router');
    await page.getByTestId('qt-hda-file').setInputFiles(IMAGE);
    // Picked once it is there; the progress bar went away.
    await until(async () => (await page.getByTestId('qt-hda-select').inputValue()) === IMAGE.name, WAIT, 'the uploaded image picked');
    assert.equal(await page.getByTestId('qt-hda-progress').count(), 0);
    assert.equal(await page.getByTestId('error-qt-hda-upload').count(), 0);
    const images = (await rest('GET', '/computes/local/qemu/images')).body;
    const img = images.find((i) => i.filename === IMAGE.name);
    assert.ok(img, `the image is listed: ${JSON.stringify(images)}`);
    assert.equal(img.filesize, IMAGE.buffer.length);

    await page.getByTestId('qt-ram').fill('64');
    await page.getByTestId('qt-cpus').fill('1');
    await page.getByTestId('qt-adapters').fill('2');
    await page.getByTestId('qt-adapter_type').selectOption('rtl8139');
    await page.getByTestId('qt-console_type').selectOption('telnet');
    await page.getByTestId('qt-submit').click();
    await page.getByTestId('qemu-template-dialog').waitFor({ state: 'detached' });
    await palette('router', 'Tiny Router').waitFor();
    assert.equal(await page.locator('[data-testid="palette-group-router"] h4').textContent(), 'Routers');

    const tpl = (await rest('GET', '/templates')).body.find((x) => x.name === 'Tiny Router');
    assert.ok(tpl, 'the template exists on the server');
    assert.equal(tpl.template_type, 'qemu');
    assert.equal(tpl.category, 'router');
    assert.equal(tpl.compute_id, 'local');
    const props = { ...tpl, ...(tpl.properties ?? {}) }; // the keys beside the common ones, as GNS3 keeps them
    assert.equal(props.hda_disk_image, IMAGE.name);
    assert.equal(props.ram, 64);
    assert.equal(props.adapters, 2);
    assert.equal(props.adapter_type, 'rtl8139');
  });

  test("groups every device by category, the built-ins first in theirs", async () => {
    for (const [name, category] of [['Edge FW', 'firewall'], ['Alpine host', 'guest'], ['Core router', 'router']]) {
      const r = await rest('POST', '/templates', { template_type: 'qemu', name, category, compute_id: 'local', hda_disk_image: 'none.qcow2' });
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    await page.reload({ waitUntil: 'domcontentloaded' });
    await palette('firewall', 'Edge FW').waitFor();
    await palette('guest', 'Alpine host').waitFor();
    await palette('router', 'Core router').waitFor();
    await page.locator('[data-testid="palette-group-guest"] [data-testid="palette-vpcs"]').waitFor();
    const order = await page.locator('[data-testid^="palette-group-"]').evaluateAll((els) => els.map((e) => e.dataset.testid.replace('palette-group-', '')));
    assert.deepEqual(order, ['router', 'switch', 'guest', 'firewall']);
  });

  test('imports an appliance: a template for the version whose image is here, the missing image named with its md5 and URL', async () => {
    // Version 1.0's image is in the images folder (matched by md5), 2.0's is not.
    const present = Buffer.alloc(64 * 1024, 0x2e);
    await upload('e2e-present.qcow2', present);
    const md5 = createHash('md5').update(present).digest('hex');
    const appliance = {
      appliance_id: '8d6f8ba4-6b0c-4a8a-9a52-2a3d7f0e6a11', name: 'E2E Guest', category: 'guest', description: 'A test appliance.',
      vendor_name: 'nodedesk', vendor_url: 'https://example.invalid/', product_name: 'E2E Guest', registry_version: 4,
      status: 'stable', maintainer: 'nodedesk', maintainer_email: 'nobody@example.invalid',
      qemu: { adapter_type: 'e1000', adapters: 1, ram: 64, hda_disk_interface: 'ide', arch: 'x86_64', console_type: 'telnet', kvm: 'allow' },
      images: [
        { filename: 'e2e-present.qcow2', version: '1.0', md5sum: md5, filesize: present.length },
        { filename: 'e2e-missing.qcow2', version: '2.0', md5sum: '0123456789abcdef0123456789abcdef', filesize: 1024, download_url: 'https://example.invalid/e2e-missing.qcow2' },
      ],
      versions: [{ name: '1.0', images: { hda_disk_image: 'e2e-present.qcow2' } }, { name: '2.0', images: { hda_disk_image: 'e2e-missing.qcow2' } }],
    };
    await page.getByTestId('import-appliance').click();
    await page.getByTestId('appliance-dialog').waitFor();
    await page.getByTestId('appliance-file').setInputFiles({ name: 'e2e.gns3a', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(appliance)) });
    await page.getByTestId('appliance-submit').click();
    await page.getByTestId('appliance-result').waitFor();
    const made = await page.getByTestId('appliance-template').evaluateAll((els) => els.map((e) => e.dataset.name));
    assert.deepEqual(made, ['E2E Guest 1.0'], 'one template: the version whose image is here');
    const missing = page.locator('[data-testid="appliance-missing"][data-filename="e2e-missing.qcow2"]');
    await missing.waitFor();
    assert.match(await missing.getByTestId('appliance-md5').textContent(), /0123456789abcdef0123456789abcdef/);
    assert.match(await missing.textContent(), /https:\/\/example\.invalid\/e2e-missing\.qcow2/);
    await screenshot(page, 'qemu-appliance.png');
    await page.getByTestId('appliance-dialog').getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('appliance-dialog').waitFor({ state: 'detached' });
    await palette('guest', 'E2E Guest 1.0').waitFor();
    const tpl = (await rest('GET', '/templates')).body.find((x) => x.name === 'E2E Guest 1.0');
    assert.equal({ ...tpl, ...(tpl.properties ?? {}) }.hda_disk_image, 'e2e-present.qcow2');
  });

  test('an appliance none of whose images is here makes no template and says which to add; imported again once they are, it does', async () => {
    const before = (await rest('GET', '/templates')).body.length;
    const appliance = {
      name: 'E2E Lacking', category: 'router', registry_version: 4, status: 'stable', maintainer: 'nodedesk', maintainer_email: 'nobody@example.invalid',
      qemu: { adapter_type: 'e1000', adapters: 1, ram: 64, arch: 'x86_64', console_type: 'telnet' },
      // No md5sum: the image is matched by its name.
      images: [{ filename: 'e2e-lacking.qcow2', version: '1', filesize: 1024, download_url: 'https://example.invalid/lacking' }],
      versions: [{ name: '1', images: { hda_disk_image: 'e2e-lacking.qcow2' } }],
    };
    await page.getByTestId('import-appliance').click();
    await page.getByTestId('appliance-dialog').waitFor();
    await page.getByTestId('appliance-file').setInputFiles({ name: 'lacking.gns3a', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(appliance)) });
    await page.getByTestId('appliance-submit').click();
    await page.getByTestId('appliance-none').waitFor();
    assert.equal(await page.getByTestId('appliance-template').count(), 0);
    await page.locator('[data-testid="appliance-missing"][data-filename="e2e-lacking.qcow2"]').waitFor();
    await screenshot(page, 'qemu-appliance-none.png');
    assert.equal((await rest('GET', '/templates')).body.length, before, 'nothing was made');
    // Once the image is in the images folder, "Import again" makes the template.
    await upload('e2e-lacking.qcow2', Buffer.alloc(32 * 1024, 0x41));
    assert.equal(await page.getByTestId('appliance-submit').textContent(), 'Import again');
    await page.getByTestId('appliance-submit').click();
    await page.locator('[data-testid="appliance-template"][data-name="E2E Lacking 1"]').waitFor();
    assert.equal(await page.getByTestId('appliance-submit').count(), 0, 'made: nothing to import again');
    await page.getByTestId('appliance-dialog').getByRole('button', { name: 'Done' }).click();
    await page.getByTestId('appliance-dialog').waitFor({ state: 'detached' });
    await palette('router', 'E2E Lacking 1').waitFor();
    assert.equal((await rest('GET', '/templates')).body.length, before + 1);
  });

  test("the node panel shows a QEMU node's properties and edits them while it is stopped", async () => {
    const tpl = (await rest('POST', '/templates', {
      template_type: 'qemu', name: 'Panel VM', category: 'guest', compute_id: 'local', hda_disk_image: 'panel.qcow2',
      hdb_disk_image: 'data.qcow2', hdb_disk_interface: 'virtio', ram: 96, cpus: 2, adapters: 3, adapter_type: 'virtio-net-pci',
      console_type: 'vnc', on_close: 'shutdown_signal', linked_clone: true,
    })).body;
    const n = (await rest('POST', `/projects/${pid}/templates/${tpl.template_id}`, { x: 100, y: 100 })).body;
    await clickNode(page, n.name);
    const panel = page.getByTestId('node-panel');
    await panel.getByTestId('qemu-properties').waitFor();
    assert.equal(await panel.getByTestId('qemu-hda-select').inputValue(), 'panel.qcow2');
    assert.equal(await panel.getByTestId('qemu-ram').inputValue(), '96');
    assert.equal(await panel.getByTestId('qemu-cpus').inputValue(), '2');
    assert.equal(await panel.getByTestId('qemu-adapters').inputValue(), '3');
    assert.equal(await panel.getByTestId('qemu-adapter_type').inputValue(), 'virtio-net-pci');
    assert.equal(await panel.getByTestId('qemu-on_close').inputValue(), 'shutdown_signal');
    assert.equal(await panel.getByTestId('field-console_type').inputValue(), 'vnc');
    const fact = (key) => panel.locator(`[data-testid="qemu-fact"][data-key="${key}"]`);
    assert.match(await fact('hdb_disk_image').textContent(), /data\.qcow2 \(virtio\)/);
    assert.match(await fact('linked_clone').textContent(), /yes/);
    assert.equal(await panel.getByTestId('qemu-locked').count(), 0, 'a stopped node can be edited');

    // Without KVM, the panel says guests are slower (when this nodedesk says how it runs them).
    const caps = await rest('GET', '/computes/local/qemu/capabilities');
    if (caps.status === 200 && caps.body.acceleration !== 'kvm') {
      await panel.getByTestId('qemu-acceleration').waitFor();
      if (caps.body.acceleration_note) assert.equal(await panel.getByTestId('qemu-acceleration').textContent(), caps.body.acceleration_note);
    } else {
      assert.equal(await panel.getByTestId('qemu-acceleration').count(), 0);
    }

    // A RAM that is no number is refused by its field; nothing is saved.
    await panel.getByTestId('qemu-ram').fill('a lot');
    await page.getByTestId('node-save').click();
    await panel.getByTestId('error-ram').waitFor();
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${n.node_id}`)).body.properties.ram, 96);
    // Then a real change is saved, and only it.
    await panel.getByTestId('qemu-ram').fill('128');
    await panel.getByTestId('qemu-adapter_type').selectOption('e1000');
    await page.getByTestId('node-save').click();
    await until(async () => (await rest('GET', `/projects/${pid}/nodes/${n.node_id}`)).body.properties.ram === 128, WAIT, 'the RAM saved');
    const saved = (await rest('GET', `/projects/${pid}/nodes/${n.node_id}`)).body.properties;
    assert.equal(saved.adapter_type, 'e1000');
    assert.equal(saved.cpus, 2);
    assert.equal(saved.hda_disk_image, 'panel.qcow2');

    // Start is there: nodedesk runs QEMU.
    await panel.getByTestId('node-start').waitFor();

    // Its VNC tab says the guest is not running, and that its screen comes when it is.
    await panel.getByTestId('node-vnc').click();
    const tab = page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"]`);
    await tab.waitFor();
    assert.equal(await tab.getAttribute('data-state'), 'waiting');
    assert.match(await tab.textContent(), /VNC/);
    assert.match(await page.getByTestId('console-banner').textContent(), /is stopped: its screen shows here when it runs/);
    await page.getByTestId('vnc-view').waitFor({ state: 'attached' });
    await screenshot(page, 'qemu-panel.png');
    await tab.getByTestId('console-tab-close').click();
    await tab.waitFor({ state: 'detached' });
  });

  test("shows a running guest's screen in a VNC tab", async () => {
    // A blank disk: the guest's BIOS says it cannot boot it, on its screen.
    const blank = { name: 'e2e-blank.img', mimeType: 'application/octet-stream', buffer: Buffer.alloc(1024 * 1024) };
    await upload(blank.name, blank.buffer);
    const tpl = (await rest('POST', '/templates', {
      template_type: 'qemu', name: 'Screen VM', category: 'guest', compute_id: 'local', hda_disk_image: blank.name, ram: 32, console_type: 'vnc',
    })).body;
    const n = (await rest('POST', `/projects/${pid}/templates/${tpl.template_id}`, { x: 300, y: 100 })).body;
    await clickNode(page, n.name);
    const panel = page.getByTestId('node-panel');
    await panel.getByTestId('node-vnc').click();
    const tab = page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"]`);
    await tab.waitFor();
    assert.equal(await tab.getAttribute('data-state'), 'waiting');
    await panel.getByTestId('node-start').click();
    await until(async () => (await tab.getAttribute('data-state')) === 'connected', BOOT, 'the VNC tab connected');
    // noVNC draws the screen in a canvas scaled into the dock.
    const canvas = page.locator(`[data-testid="vnc-view"][data-node="${n.node_id}"] canvas`);
    await canvas.waitFor();
    const box = await canvas.boundingBox();
    assert.ok(box && box.width > 100 && box.height > 50, `the screen is drawn: ${JSON.stringify(box)}`);
    // The guest's screen, not a black box: the BIOS's text shows on it.
    const lit = () => canvas.evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] + d[i + 1] + d[i + 2] > 300) n++;
      return n;
    });
    await until(async () => (await lit()) > 200, BOOT, "the guest's BIOS text on the VNC screen");
    assert.equal(await panel.getByTestId('qemu-locked').count(), 1, 'a running node cannot be edited');
    await screenshot(page, 'qemu-vnc.png');
    // Stopped, the tab says so and waits.
    await panel.getByTestId('node-stop').click();
    await until(async () => (await tab.getAttribute('data-state')) === 'waiting', BOOT, 'the VNC tab waiting after the stop');
  });

  test('no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
