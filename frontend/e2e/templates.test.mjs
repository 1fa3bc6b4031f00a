// Templates managed in the window, and devices easy to find, against a
// real nodedesk in Debian's chromium at 1280×800: the palette groups every
// device by category with each group's header and the "new template"
// buttons in view; a user template is edited (a field changed, kept when
// reopened), duplicated and deleted (told first how many nodes in how many
// projects were made from it), a built-in one says why it cannot be; the
// empty canvas says how to add a router, a VM or a container and opens
// the right dialog; and a new IOS template gets an idle-PC value found on
// its image, so that a router made from it idles (under 5 % of a core,
// read from /proc). The image is the free stand-in of ../shared/fake-ios;
// dynamips is the one make builds (NODEDESK_DYNAMIPS).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, restClient, startServer, screenshot, until as untilIn } from './harness.mjs';

const WAIT = 5_000; // bound for anything the UI does after a click
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);
const SHOTS = process.env.NODEDESK_SHOTS ?? '/work/shots';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const dynamips = process.env.NODEDESK_DYNAMIPS ?? path.join(repo, 'build', 'dynamips', 'dynamips');
function fakeImage() {
  const dirs = [process.env.NODEDESK_FAKE_IOS, path.join(repo, '..', 'shared', 'fake-ios')].filter(Boolean);
  const dir = dirs.find((d) => existsSync(path.join(d, 'fake-ios-c7200.image')));
  assert.ok(dir, `the stand-in IOS image is in none of ${dirs.join(', ')}: set NODEDESK_FAKE_IOS`);
  return { name: 'c7200-fakeios-mz.tpl.image', mimeType: 'application/octet-stream', buffer: readFileSync(path.join(dir, 'fake-ios-c7200.image')) };
}

/** cpuTicks is a process's user + system time, in clock ticks. */
function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

/** routerProcesses are the pids of parent's children running prog in a
 * folder of the node's (Dynamips runs in the router's folder). */
function routerProcesses(parent, prog, nodeId) {
  const out = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === parent && readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0')[0] === prog && readlinkSync(`/proc/${d}/cwd`).includes(nodeId)) out.push(Number(d));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

describe('templates in the window, devices easy to find', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const pageErrors = [];
  const tile = (name) => page.locator(`aside.palette [data-name="${name}"]`);
  const menuOf = async (name) => {
    await tile(name).first().click({ button: 'right' });
    await page.getByTestId('context-menu').waitFor();
  };

  before(async () => {
    assert.ok(existsSync(dynamips), `dynamips is not built at ${dynamips}: run make dynamips`);
    server = await startServer({ env: { NODEDESK_DYNAMIPS: dynamips } });
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'templates lab' })).body.project_id;
    // Four templates of the user's, and nodes made from one of them in two projects.
    for (const body of [
      { template_type: 'qemu', name: 'Debian VM', category: 'guest', compute_id: 'local', hda_disk_image: 'debian.qcow2', ram: 256 },
      { template_type: 'qemu', name: 'VyOS', category: 'router', compute_id: 'local', hda_disk_image: 'vyos.qcow2' },
      { template_type: 'docker', name: 'Alpine', category: 'guest', compute_id: 'local', image: 'alpine:latest' },
      { template_type: 'vpcs', name: 'Lab PC', category: 'guest', compute_id: 'local' },
      { template_type: 'ethernet_switch', name: 'Office switch', category: 'switch', compute_id: 'local' },
    ]) {
      const r = await rest('POST', '/templates', body);
      assert.equal(r.status, 201, JSON.stringify(r.body));
    }
    const pc = (await rest('GET', '/templates')).body.find((t) => t.name === 'Lab PC');
    const other = (await rest('POST', '/projects', { name: 'other lab' })).body.project_id;
    const third = (await rest('POST', '/projects', { name: 'third lab' })).body.project_id;
    for (const [p, x] of [[other, 0], [other, 100], [third, 0]]) {
      assert.equal((await rest('POST', `/projects/${p}/templates/${pc.template_id}`, { x, y: 0 })).status, 201);
    }
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('canvas-empty').waitFor();
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async () => {
    await screenshot(page, 'templates.png');
    if (rest && pid) await rest('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  test('the palette groups every device by category, every header and the new-template buttons in view at 1280×800', async () => {
    await tile('Office switch').waitFor();
    const order = await page.locator('[data-testid^="palette-group-"]').evaluateAll((els) => els.map((e) => e.dataset.testid.replace('palette-group-', '')));
    assert.deepEqual(order, ['router', 'switch', 'guest']);
    assert.equal(await page.locator('[data-testid="palette-group-guest"] h4').textContent(), 'End devices');
    assert.equal(await page.locator('[data-testid="palette-group-guest"] [data-testid="palette-vpcs"]').first().getAttribute('data-name'), 'VPCS', 'built-ins first in their group');
    assert.equal(await page.locator('[data-testid="palette-group-router"] [data-name="VyOS"]').count(), 1);
    const inView = async (loc) => {
      const b = await loc.boundingBox();
      return b !== null && b.y >= 0 && b.x >= 0 && b.y + b.height <= 800 && b.x + b.width <= 1280;
    };
    for (const h of await page.locator('aside.palette h4').all()) assert.ok(await inView(h), `${await h.textContent()} is in view`);
    const makers = ['new-qemu-template', 'new-docker-template', 'new-ios-template', 'new-iou-template', 'import-appliance'];
    for (const id of makers) assert.ok(await inView(page.getByTestId(id)), `${id} is in view`);
    // A group folds away, and comes back.
    await page.getByTestId('palette-fold-switch').click();
    assert.equal(await tile('Office switch').count(), 0);
    await page.getByTestId('palette-fold-switch').click();
    await tile('Office switch').waitFor();
    await page.screenshot({ path: path.join(SHOTS, 'palette-1280x800.png') });
  });

  test('the empty canvas says how to add a router, a VM or a container, and opens the right dialog', async () => {
    const hint = page.getByTestId('empty-add-from-image');
    await hint.waitFor();
    assert.match(await hint.textContent(), /router, a VM or a container/);
    await page.getByTestId('empty-new-qemu-template').click();
    await page.getByTestId('qemu-template-dialog').waitFor();
    assert.equal(await page.getByTestId('template-form').getAttribute('data-editing'), 'false');
    await page.keyboard.press('Escape');
    await page.getByTestId('qemu-template-dialog').waitFor({ state: 'detached' });
    await page.getByTestId('empty-new-ios-template').click();
    await page.getByTestId('ios-template-dialog').waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('ios-template-dialog').waitFor({ state: 'detached' });
  });

  test('a template is edited in its dialog: a field changed is kept, as the reopened dialog shows', async () => {
    await menuOf('Debian VM');
    await page.getByTestId('menu-edit').click();
    const dialog = page.getByTestId('qemu-template-dialog');
    await dialog.waitFor();
    assert.equal(await page.getByTestId('template-form').getAttribute('data-editing'), 'true');
    assert.equal(await page.getByTestId('qt-name').inputValue(), 'Debian VM');
    assert.equal(await page.getByTestId('qt-ram').inputValue(), '256', "the form opens with the template's values");
    await page.getByTestId('qt-ram').fill('384');
    await page.screenshot({ path: path.join(SHOTS, 'template-editor-1280x800.png') });
    await page.getByTestId('qt-submit').click();
    await dialog.waitFor({ state: 'detached' });
    const t = (await rest('GET', '/templates')).body.find((x) => x.name === 'Debian VM');
    assert.equal(t.ram, 384, 'the server keeps the new RAM');
    assert.equal(t.hda_disk_image, 'debian.qcow2', 'and the rest as it was');
    await menuOf('Debian VM');
    await page.getByTestId('menu-edit').click();
    await dialog.waitFor();
    assert.equal(await page.getByTestId('qt-ram').inputValue(), '384', 'reopened, the dialog shows the value kept');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });

    // A user template of a built-in type edits the keys every template has.
    await menuOf('Office switch');
    await page.getByTestId('menu-edit').click();
    await page.getByTestId('template-dialog').waitFor();
    await page.getByTestId('tt-name').fill('Floor switch');
    await page.getByTestId('tt-submit').click();
    await page.getByTestId('template-dialog').waitFor({ state: 'detached' });
    await tile('Floor switch').waitFor();
    assert.ok((await rest('GET', '/templates')).body.some((x) => x.name === 'Floor switch'));
  });

  test('a template is duplicated', async () => {
    await menuOf('Alpine');
    await page.getByTestId('menu-duplicate').click();
    await until(async () => (await tile('Alpine').count()) === 2, WAIT, 'two Alpine tiles');
    const copies = (await rest('GET', '/templates')).body.filter((x) => x.name === 'Alpine');
    assert.equal(copies.length, 2);
    assert.notEqual(copies[0].template_id, copies[1].template_id);
    assert.equal(copies[1].image, 'alpine:latest');
  });

  test('deleting a template says first what was made from it; a built-in one cannot be', async () => {
    await menuOf('Lab PC');
    await page.getByTestId('menu-delete').click();
    const confirm = page.getByTestId('confirm-dialog');
    await confirm.waitFor();
    assert.match(await confirm.textContent(), /3 nodes in 2 projects were made from it; they keep their settings\./);
    await page.getByTestId('confirm-cancel').click();
    await confirm.waitFor({ state: 'detached' });
    assert.ok((await rest('GET', '/templates')).body.some((x) => x.name === 'Lab PC'), 'Cancel keeps it');

    await menuOf('Lab PC');
    await page.getByTestId('menu-delete').click();
    await confirm.waitFor();
    await page.getByTestId('confirm-ok').click();
    await until(async () => (await tile('Lab PC').count()) === 0, WAIT, 'the tile gone');
    assert.ok(!(await rest('GET', '/templates')).body.some((x) => x.name === 'Lab PC'), 'the server has it no more');
    const all = (await rest('GET', '/projects')).body;
    let nodes = 0;
    for (const p of all) nodes += (await rest('GET', `/projects/${p.project_id}/nodes`)).body.length;
    assert.equal(nodes, 3, 'the nodes made from it stay');

    await menuOf('VPCS');
    const why = page.getByTestId('menu-builtin');
    assert.equal(await why.textContent().then((s) => s.trim()), 'VPCS is built in: it cannot be edited or deleted');
    assert.equal(await why.isEnabled(), false);
    assert.equal(await page.getByTestId('menu-delete').count(), 0);
    await page.keyboard.press('Escape');
    assert.deepEqual(pageErrors, []);
  });

  test('a new IOS template gets an idle-PC value found on its image, and a router made from it idles', async () => {
    await page.getByTestId('new-ios-template').click();
    await page.getByTestId('ios-template-dialog').waitFor();
    const image = fakeImage();
    await page.getByTestId('it-image-file').setInputFiles(image);
    await until(async () => (await page.getByTestId('it-image-select').inputValue()) === image.name, 15_000, 'the uploaded image is picked');
    await until(async () => (await page.getByTestId('it-platform').inputValue()) === 'c7200', WAIT, 'the platform read from the name');
    await page.getByTestId('it-submit').click();
    const step = page.getByTestId('idlepc-step');
    await step.waitFor();
    assert.match(await step.textContent(), /Finding an idle-PC value for c7200… this takes about 20 s/);
    assert.equal(await page.getByTestId('idlepc-skip').isEnabled(), true, 'the user may skip');
    await page.screenshot({ path: path.join(SHOTS, 'ios-template-idlepc-1280x800.png') });
    await page.getByTestId('ios-template-dialog').waitFor({ state: 'detached', timeout: 60_000 });
    const tpl = (await rest('GET', '/templates')).body.find((t) => t.template_type === 'dynamips');
    assert.match(tpl.idlepc, /^0x[0-9a-f]+$/i, `the template keeps an idle PC: ${tpl.idlepc}`);

    const r = await rest('POST', `/projects/${pid}/templates/${tpl.template_id}`, { x: 100, y: 100 });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(r.body.properties.idlepc, tpl.idlepc, 'the router gets it');
    assert.equal((await rest('POST', `/projects/${pid}/nodes/${r.body.node_id}/start`, {})).status, 200);
    const [router] = await until(async () => { const p = routerProcesses(server.pid, dynamips, r.body.node_id); return p.length === 1 && p; }, WAIT, "the router's dynamips running");
    // The stand-in IOS reaches its idle loop in under 0.5 s; then a 2 s
    // window (without an idle PC, Dynamips spins at 60-90 % of a core).
    await new Promise((res) => setTimeout(res, 500));
    const t0 = cpuTicks(router);
    const w0 = Date.now();
    await new Promise((res) => setTimeout(res, 2000));
    const share = (cpuTicks(router) - t0) / 100 / ((Date.now() - w0) / 1000);
    console.log(`# the router's dynamips used ${(share * 100).toFixed(1)} % of a core over 2 s`);
    assert.ok(share < 0.05, `the router idles: ${(share * 100).toFixed(1)} % of a core`);
    assert.equal((await rest('POST', `/projects/${pid}/nodes/${r.body.node_id}/stop`, {})).status, 200);
    assert.deepEqual(pageErrors, []);
  });
});
