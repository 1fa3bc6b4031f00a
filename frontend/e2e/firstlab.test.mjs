// The README's "Your first lab", step by step, as a new user does it in the
// page: a project, two VPCS hosts from the palette, a link dragged from
// PC1's handle, Start every node, consoles, addresses, a ping that answers.
// Its last picture is the README's screenshot (build/artifacts/first-lab.png,
// kept as docs/first-lab.png).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, clickNode, canvasNode } from './harness.mjs';

const WAIT = 10_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);
/** The repository's build/artifacts: where the README's picture is made. */
const BUILD_ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'build', 'artifacts');

describe('the README\'s first lab', { timeout: 180_000 }, () => {
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
  /** Whether the terminal's last line is the VPCS prompt (name> ), idle. */
  const idle = (text, name) => text.trimEnd().endsWith(`${name}>`);
  /** Runs a command in a VPCS's console as a user does: waits for the
   * prompt (Enter wakes it), types the command once, waits until want shows
   * and the prompt is back, and returns want's match. VPCS drops keys typed
   * while it is busy, so a command that shows nothing is typed again. */
  async function run(name, command, want) {
    const nid = ids[name];
    await page.locator(`[data-testid="console-terminal"][data-node="${nid}"] .xterm`).click();
    let last = 0;
    const offset = await until(async () => {
      const s = await screen(nid);
      if (idle(s, name)) return s.trimEnd().length;
      if (Date.now() - last > 2_000) {
        last = Date.now();
        await page.keyboard.press('Enter');
      }
      return null;
    }, 20_000, `${name}'s prompt`);
    last = 0;
    return until(async () => {
      const s = (await screen(nid)).slice(offset);
      const m = s.match(want);
      if (m && idle(s, name)) return m;
      if (!m && Date.now() - last > 15_000) {
        last = Date.now();
        await page.keyboard.type(command);
        await page.keyboard.press('Enter');
      }
      return null;
    }, 40_000, `${want} after ${command}, then ${name}'s prompt`).catch(async (e) => {
      throw new Error(`${e.message}; ${name}'s console shows:\n${(await screen(nid)).trimEnd()}`);
    });
  }

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(server.url, { waitUntil: 'domcontentloaded' });
  });

  after(async () => {
    await screenshot(page, 'first-lab-end.png');
    if (pid) await rest?.('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  test('1. a project from the start screen: a name, then Create project', async () => {
    await page.getByTestId('start-project-name').fill('first lab');
    await page.getByRole('button', { name: 'Create project' }).click();
    await page.getByTestId('project-title').filter({ hasText: 'first lab' }).waitFor();
    await page.getByTestId('canvas-empty').waitFor();
    pid = (await rest('GET', '/projects')).body.find((p) => p.name === 'first lab').project_id;
  });

  test('2. two VPCS hosts from the palette: one dragged, one clicked then placed', async () => {
    const canvas = page.getByTestId('canvas');
    const vpcs = page.getByTestId('palette-vpcs');
    assert.equal((await vpcs.textContent()).trim(), 'VPCS');
    await vpcs.dragTo(canvas, { targetPosition: { x: 260, y: 200 } });
    await node('PC1').waitFor();
    await vpcs.click();
    await canvas.click({ position: { x: 560, y: 200 } });
    await node('PC2').waitFor();
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    for (const n of nodes) ids[n.name] = n.node_id;
    assert.deepEqual(nodes.map((n) => [n.name, n.node_type]).sort(), [['PC1', 'vpcs'], ['PC2', 'vpcs']]);
  });

  test("3. a link: drag from PC1's blue dot onto PC2, then Create link", async () => {
    await node('PC1').hover();
    const dot = node('PC1').locator('.connect-handle');
    await until(async () => Number(await dot.evaluate((e) => getComputedStyle(e).opacity)) === 1, WAIT, 'the blue dot shown');
    const from = await dot.boundingBox();
    const to = await node('PC2').boundingBox();
    await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
    await page.mouse.down();
    await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
    await page.mouse.up();
    const dialog = page.getByTestId('link-dialog');
    await dialog.waitFor();
    assert.equal(await page.getByTestId('link-a-node').locator('option:checked').textContent(), 'PC1');
    assert.equal(await page.getByTestId('link-b-node').locator('option:checked').textContent(), 'PC2');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('topology-counts').and(page.locator('[data-links="1"]')).waitFor();
    const { body: links } = await rest('GET', `/projects/${pid}/links`);
    assert.deepEqual(links[0].nodes.map((e) => e.node_id).sort(), [ids.PC1, ids.PC2].sort());
  });

  test('4. Start every node (All nodes, ▶): both run', async () => {
    await page.getByRole('button', { name: 'Start every node' }).click();
    for (const name of ['PC1', 'PC2']) {
      await until(async () => (await node(name).getAttribute('data-status')) === 'started', WAIT, `${name} started`);
    }
  });

  test("5. PC2's console by a double-click; ip 10.0.0.2/24", async () => {
    await clickNode(page, 'PC2', { double: true });
    await tab('PC2').and(page.locator('[data-state="connected"]')).waitFor();
    // VPCS names the host in this answer by its slot ("PC1 : …"), whatever its pcname.
    await run('PC2', 'ip 10.0.0.2/24', /: 10\.0\.0\.2 255\.255\.255\.0/);
  });

  test("6. PC1's console by its Console button; ip 10.0.0.1/24", async () => {
    await clickNode(page, 'PC1');
    await page.getByTestId('node-panel').getByRole('button', { name: 'Console', exact: true }).click();
    await tab('PC1').and(page.locator('[aria-selected="true"]')).waitFor();
    await tab('PC1').and(page.locator('[data-state="connected"]')).waitFor();
    await run('PC1', 'ip 10.0.0.1/24', /: 10\.0\.0\.1 255\.255\.255\.0/);
  });

  test('7. ping 10.0.0.2 from PC1 answers; the picture of it', async () => {
    // VPCS's answer to each echo reply: "<address> icmp_seq=<n> ttl=<ttl> time=<ms> ms".
    const replies = await run('PC1', 'ping 10.0.0.2', /^10\.0\.0\.2 icmp_seq=1 ttl=\d+ time=[\d.]+ ms$/m);
    assert.ok(replies, 'PC2 answers the first echo request');
    assert.doesNotMatch(await screen(ids.PC1), /timeout|not reachable/, 'no echo request went unanswered');
    await page.locator('.svelte-flow__pane').click({ position: { x: 40, y: 40 } }); // no selection in the picture
    await page.waitForTimeout(300); // let the selection transitions end
    mkdirSync(BUILD_ARTIFACTS, { recursive: true });
    await page.screenshot({ path: path.join(BUILD_ARTIFACTS, 'first-lab.png') });
    assert.deepEqual(pageErrors, []);
  });
});
