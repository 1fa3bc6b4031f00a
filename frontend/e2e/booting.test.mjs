// A lab that boots, and a lab that is not lost by mistake, against a real
// nodedesk in Debian's chromium: a real QEMU guest (the test guest that
// `make guest` builds, its kernel quiet for seconds under TCG) shows
// booting on the canvas and in its panel, then running; closing its
// project while it runs asks first: Cancel keeps everything, "Stop and
// close" stops it and closes. Nothing here skips.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, restClient, startServer, screenshot, until as untilIn, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000;
/** Bound for the test guest to boot under TCG on a loaded machine. */
const BOOT = 90_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);
const GUEST = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'build', 'guest');
/** The test guest's kernel arguments (build/guest/README). */
const ARGS = 'console=ttyS0 quiet nokaslr mitigations=off tsc=reliable cryptomgr.notests';
/** Where the lead's note finds its picture of a booting lab. */
const SHOTS = process.env.NODEDESK_SHOTS ?? '/work/shots';

describe('booting, and asking before losing a running lab', { timeout: 240_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  let guest;
  const pageErrors = [];

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    for (const [name, file] of [['e2e-vmlinux', 'vmlinux'], ['e2e-initrd.img', 'initrd.img']]) {
      const r = await fetch(`${server.url}/v2/compute/qemu/images/${name}`, { method: 'POST', body: readFileSync(path.join(GUEST, file)) });
      assert.ok(r.ok, `upload of ${name} answered ${r.status} (run make guest): ${await r.text()}`);
    }
    pid = (await rest('POST', '/projects', { name: 'boot lab' })).body.project_id;
    guest = (await rest('POST', `/projects/${pid}/nodes`, {
      node_type: 'qemu', compute_id: 'local', name: 'Guest1', console_type: 'telnet', x: 0, y: 0,
      properties: { kernel_image: 'e2e-vmlinux', initrd: 'e2e-initrd.img', ram: 128, kernel_command_line: ARGS },
    })).body;
    assert.equal(guest.booting, false, 'a stopped node is not booting');
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await canvasNode(page, 'Guest1').waitFor();
  });

  after(async () => {
    if (rest && pid) await rest('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  test('a started guest shows booting on the canvas and in its panel, then running', async () => {
    const node = canvasNode(page, 'Guest1');
    await clickNode(page, 'Guest1');
    const panel = page.getByTestId('node-panel');
    await panel.getByTestId('node-start').click();
    await until(async () => (await node.getAttribute('data-booting')) === 'true', WAIT, 'Guest1 booting on the canvas');
    assert.equal(await node.getAttribute('data-status'), 'started', 'booting is started to GNS3 clients');
    assert.equal(await panel.getByTestId('panel-status').textContent(), 'Booting');
    assert.match(await node.getAttribute('title'), /booting/, 'the word on hover');
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: path.join(SHOTS, 'booting-lab.png') });
    await until(async () => (await node.getAttribute('data-booting')) === 'false', BOOT, 'Guest1 booted');
    assert.equal(await node.getAttribute('data-status'), 'started');
    assert.equal(await panel.getByTestId('panel-status').textContent(), 'Running');
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${guest.node_id}`)).body.booting, false);
  });

  test('closing the project while its guest runs asks: Cancel keeps it, Stop and close stops it', async () => {
    const dialog = page.getByTestId('confirm-dialog');
    await page.getByTestId('project-close').click();
    await dialog.waitFor();
    assert.match(await dialog.textContent(), /1 node is running in boot lab/);
    await dialog.getByTestId('confirm-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await rest('GET', `/projects/${pid}`)).body.status, 'opened', 'Cancel keeps the project open');
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${guest.node_id}`)).body.status, 'started', 'and its guest running');
    await canvasNode(page, 'Guest1').waitFor();

    // Leaving the tab asks too (the browser words it).
    let asked = null;
    page.once('dialog', (d) => { asked = d.type(); void d.dismiss(); });
    await page.close({ runBeforeUnload: true });
    await until(() => asked, WAIT, 'the beforeunload question');
    assert.equal(asked, 'beforeunload');
    assert.equal(page.isClosed(), false, 'dismissed, the tab stays');

    await page.getByTestId('project-close').click();
    await dialog.waitFor();
    await screenshot(page, 'close-running-lab.png');
    await dialog.getByTestId('confirm-ok').click();
    await until(async () => (await rest('GET', `/projects/${pid}`)).body.status === 'closed', 30_000, 'the project closed');
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${guest.node_id}`)).body.status, 'stopped', 'its guest stopped');
  });

  test('no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
