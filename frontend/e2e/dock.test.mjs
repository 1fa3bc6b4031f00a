// The console dock never hides the lab (issue 40): the canvas ends above
// the dock, a node placed low stays in view and clickable once the dock
// opens, fit uses the space above it; the console tabs come back after a
// reload and reconnect; a double-click on a stopped node shows its panel;
// a missing image is told in the panel before a start; the project title
// is whole in a 1280 px window.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, clickNode, canvasNode } from './harness.mjs';

const WAIT = 10_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

describe('console dock', { timeout: 90_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const ids = {};
  const pageErrors = [];
  const node = (name) => canvasNode(page, name);
  const tab = (name) => page.locator(`[data-testid="console-tab"][data-name="${name}"]`);
  const box = (loc) => loc.boundingBox();

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'Branch office lab' })).body.project_id;
    const mk = async (body) => (await rest('POST', `/projects/${pid}/nodes`, body)).body.node_id;
    ids.pc1 = await mk({ node_type: 'vpcs', name: 'PC1', x: 0, y: 0 });
    ids.low = await mk({ node_type: 'vpcs', name: 'Low', x: 300, y: 700 }); // placed low
    ids.pc3 = await mk({ node_type: 'vpcs', name: 'PC3', x: 500, y: 0 });
    ids.vm = await mk({ node_type: 'qemu', name: 'VM1', x: 500, y: 250, properties: { hda_disk_image: 'absent.qcow2' } });
    assert.equal((await rest('POST', `/projects/${pid}/nodes/${ids.pc1}/start`, {})).status, 200);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.locator('[data-testid="canvas"][data-view="fitted"]').waitFor();
    await node('Low').waitFor();
  });

  after(async () => {
    await screenshot(page, 'dock.png');
    await rest?.('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  /** Whether the node is wholly above the dock's top and inside the canvas. */
  async function aboveDock(name) {
    const [n, dock, canvas] = [await box(node(name)), await box(page.getByTestId('console-dock')), await box(page.getByTestId('canvas'))];
    return n && dock && canvas && n.y >= canvas.y && n.y + n.height <= dock.y + 0.5 && canvas.y + canvas.height <= dock.y + 1;
  }

  test('in a 1280 px window the project title is whole, and the toolbar fits', async () => {
    const title = page.getByTestId('project-title');
    const [w, full] = await title.evaluate((h) => [h.clientWidth, h.scrollWidth]);
    assert.ok(w >= full && w > 100, `the title shows ${w} of its ${full} px`);
    const close = await box(page.getByTestId('project-close'));
    assert.ok(close.x + close.width <= 1280, `the Close button ends at ${close.x + close.width} px`);
  });

  test('with the dock open, a node placed low stays in view and clickable', async () => {
    await clickNode(page, 'PC1', { double: true });
    await tab('PC1').and(page.locator('[data-state="connected"]')).waitFor();
    await until(() => aboveDock('Low'), WAIT, 'Low above the dock');
    await clickNode(page, 'Low');
    assert.equal(await page.getByTestId('panel-node-name').textContent(), 'Low');
  });

  test('fit uses the space above the dock', async () => {
    await page.getByTestId('fit-view').click();
    const canvas = await box(page.getByTestId('canvas'));
    await until(async () => {
      const [a, b] = [await box(node('PC1')), await box(node('Low'))];
      // Both in view above the dock, and the lab fills the height left (a fit, not a shrink).
      return (await aboveDock('Low')) && (await aboveDock('PC1')) && b.y + b.height - a.y > canvas.height * 0.6;
    }, WAIT, 'the lab fitted above the dock');
  });

  test('the console tabs come back after a reload, and reconnect', async () => {
    await until(() => page.evaluate((p) => localStorage.getItem(`nodedesk.consoles.${p}`)?.includes('"nid"'), pid), WAIT, 'the tabs kept');
    await page.reload({ waitUntil: 'domcontentloaded' });
    await tab('PC1').and(page.locator('[data-state="connected"]')).waitFor();
    await until(() => aboveDock('Low'), WAIT, 'Low above the dock after the reload');
    await page.getByTestId('console-tab-close').click();
    await page.getByTestId('console-dock').waitFor({ state: 'detached' });
    await page.reload({ waitUntil: 'domcontentloaded' });
    await node('Low').waitFor();
    await page.locator('[data-testid="canvas"][data-view="fitted"]').waitFor();
    assert.equal(await tab('PC1').count(), 0, 'a closed tab does not come back');
  });

  test('a double-click on a stopped node shows its panel and offers to start it', async () => {
    await clickNode(page, 'PC1'); // the panel shows another node first
    await clickNode(page, 'PC3', { double: true });
    await until(async () => (await page.getByTestId('panel-node-name').textContent()) === 'PC3', WAIT, "PC3's panel");
    await page.getByTestId('toast-info').filter({ hasText: 'PC3 is stopped' }).getByTestId('toast-action').waitFor();
  });

  test("a missing image is told in the node's panel before any start", async () => {
    await clickNode(page, 'VM1');
    const m = page.getByTestId('panel-missing-image');
    await m.waitFor();
    assert.match(await m.textContent(), /VM1 cannot start: its hda_disk_image: .*absent\.qcow2/);
    await clickNode(page, 'PC3');
    await until(async () => (await page.getByTestId('panel-node-name').textContent()) === 'PC3', WAIT, "PC3's panel");
    assert.equal(await m.count(), 0, 'a VPCS names no image');
    assert.deepEqual(pageErrors, []);
  });
});
