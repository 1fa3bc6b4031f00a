// Consoles in the page: a real VPCS's console in a tab (type `show ip`,
// read the address from the terminal), the tab saying when the node stops
// and reconnecting by itself when it starts; "Console to all"; the
// console keys.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, ARTIFACTS, clickNode, canvasNode } from './harness.mjs';

const WAIT = 10_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

describe('console tabs', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const ids = {};
  const pageErrors = [];
  const node = (name) => canvasNode(page, name);
  const tab = (name) => page.locator(`[data-testid="console-tab"][data-name="${name}"]`);
  /** The whole buffer of a node's terminal, scrollback included. */
  const screen = (nid) =>
    page.evaluate((id) => {
      const t = document.querySelector(`[data-testid="console-terminal"][data-node="${id}"] .screen`)?.xterm;
      if (!t) return '';
      const b = t.buffer.active;
      let text = '';
      for (let i = 0; i < b.length; i++) {
        const line = b.getLine(i);
        if (!line) continue;
        text += (i > 0 && !line.isWrapped ? '\n' : '') + line.translateToString(!b.getLine(i + 1)?.isWrapped);
      }
      return text;
    }, nid);
  /** Types into the node's terminal until want shows after offset: VPCS
   * drops keys typed while it is busy, so type again. */
  async function typeUntil(nid, text, want, offset = 0) {
    await page.locator(`[data-testid="console-terminal"][data-node="${nid}"] .xterm`).click();
    return until(async () => {
      const s = await screen(nid);
      if (s.slice(offset).includes(want)) return s;
      await page.keyboard.type(text);
      await page.keyboard.press('Enter');
      return null;
    }, 20_000, `${want} in the console`);
  }

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'console lab' })).body.project_id;
    const mk = async (body) => (await rest('POST', `/projects/${pid}/nodes`, body)).body.node_id;
    ids.pc1 = await mk({ node_type: 'vpcs', name: 'PC1', x: 0, y: 0, properties: { startup_script: 'set pcname PC1\nip 10.9.8.7/24 10.9.8.1\n' } });
    ids.pc2 = await mk({ node_type: 'vpcs', name: 'PC2', x: 250, y: 0 });
    ids.sw = await mk({ node_type: 'ethernet_switch', name: 'Sw1', console_type: 'telnet', x: 120, y: 200 });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await node('Sw1').waitFor();
  });

  after(async () => {
    await screenshot(page, 'consoles.png');
    await rest?.('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  test('a started VPCS: double-click opens its console; show ip; stop says so; start reconnects', async () => {
    await clickNode(page, 'PC1');
    await page.getByTestId('node-start').click();
    await until(async () => (await node('PC1').getAttribute('data-status')) === 'started', WAIT, 'PC1 started');
    await clickNode(page, 'PC1', { double: true });
    await tab('PC1').and(page.locator('[data-state="connected"]')).waitFor();
    await typeUntil(ids.pc1, 'show ip', '10.9.8.7');
    assert.match(await screen(ids.pc1), /255\.255\.255\.0/);

    await page.getByTestId('node-stop').click();
    await tab('PC1').and(page.locator('[data-state="waiting"]')).waitFor();
    assert.equal(await tab('PC1').getByTestId('console-tab-state').textContent(), 'stopped');
    await page.getByTestId('console-banner').filter({ hasText: 'PC1 is stopped' }).waitFor();

    const before = (await screen(ids.pc1)).length;
    await page.getByTestId('node-start').click();
    await tab('PC1').and(page.locator('[data-state="connected"]')).waitFor();
    await typeUntil(ids.pc1, 'show ip', '10.9.8.7', before);
    assert.match(await screen(ids.pc1), /\[reconnected\]/);
    await mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(ARTIFACTS, 'console-tab.png') });
  });

  test('Console to all: a tab for every started node with a console', async () => {
    await page.getByTestId('console-tab-close').click();
    await page.getByTestId('console-dock').waitFor({ state: 'detached' });
    await page.getByTestId('project-consoles').click();
    await tab('Sw1').and(page.locator('[data-state="connected"]')).waitFor();
    await tab('PC1').and(page.locator('[data-state="connected"]')).waitFor();
    assert.equal(await tab('PC2').count(), 0, 'PC2 is stopped: no tab');
    await until(async () => (await screen(ids.sw)).includes('Sw1>') || (await screen(ids.pc1)).length > 0, WAIT, 'output');
    await page.locator('[data-testid="console-tab"][aria-selected="true"]').waitFor();
  });

  test('keys: Alt+PageDown/PageUp move, Alt+Shift+W closes, Escape goes to the canvas, Alt+Enter opens the selection', async () => {
    const active = () => page.locator('[data-testid="console-tab"][aria-selected="true"]').getAttribute('data-name');
    const first = await active();
    await page.locator(`[data-testid="console-terminal"][data-node="${first === 'PC1' ? ids.pc1 : ids.sw}"] .xterm`).click();
    await page.keyboard.press('Alt+PageDown');
    const second = await until(async () => ((await active()) !== first ? active() : null), WAIT, 'the next tab');
    await page.keyboard.press('Alt+PageUp');
    await until(async () => (await active()) === first, WAIT, 'the previous tab');
    // The switch's shell answers in its tab, typed after moving there by keys.
    if (first !== 'Sw1') await page.keyboard.press('Alt+PageDown');
    await typeUntil(ids.sw, 'show vlan', 'Ethernet7');

    await page.keyboard.press('Escape');
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute('data-testid')), 'canvas');
    await page.keyboard.press('Alt+Shift+W');
    await until(async () => (await page.getByTestId('console-tab').count()) === 1, WAIT, 'one tab closed');
    assert.equal(await tab('Sw1').count(), 0);
    assert.ok([first, second].includes('Sw1'));

    // Half of Sw1 below the canvas's bottom edge (panned there: the dock
    // itself keeps a lab in view, dock.test.mjs). Bringing Sw1 into view
    // as focus does leaves the canvas where it was: only panning moves it.
    const canvas = await page.locator('.svelte-flow').boundingBox();
    const was = await node('Sw1').boundingBox();
    const dy = canvas.y + canvas.height - (was.y + was.height / 2);
    await page.mouse.move(canvas.x + 4, canvas.y + 4);
    await page.mouse.down();
    for (let i = 1; i <= 5; i++) await page.mouse.move(canvas.x + 4, canvas.y + 4 + (i * dy) / 5);
    await page.mouse.up();
    const sw = await node('Sw1').boundingBox();
    assert.ok(sw.y + sw.height > canvas.y + canvas.height, `Sw1 is cut off by the dock (${sw.y + sw.height} > ${canvas.y + canvas.height})`);
    const scrolled = await node('Sw1').evaluate((el) => {
      el.scrollIntoView({ block: 'end' });
      return el.closest('.svelte-flow').scrollTop;
    });
    assert.equal(scrolled, 0, 'nothing scrolls the canvas');
    assert.deepEqual(await node('Sw1').boundingBox(), sw);
    await page.getByTestId('fit-view').click();
    await clickNode(page, 'Sw1');
    await page.keyboard.press('Alt+Enter');
    await tab('Sw1').and(page.locator('[aria-selected="true"]')).waitFor();
    await tab('Sw1').and(page.locator('[data-state="connected"]')).waitFor();
    assert.deepEqual(pageErrors, []);
  });
});
