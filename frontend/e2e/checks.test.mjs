// "Check my lab" in the page (issue 39): two VPCS hosts on one wire, the
// Checks panel opened from the toolbar, a reach check added by picking both
// nodes and one to an address nobody holds, both saved in the project's
// checks file; Run all gives a pass for the hosts that ping and a fail for
// the address, with the failure's words; a reload shows the newest run.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, canvasNode } from './harness.mjs';

const WAIT = 5_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);
/** Where the pictures for the note go, when asked (NODEDESK_SHOTS). */
const SHOTS = process.env.NODEDESK_SHOTS;

describe('the Checks panel', { timeout: 60_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const pageErrors = [];
  const row = (id) => page.locator(`[data-testid="check-row"][data-check-id="${id}"]`);
  /** save clicks Save and waits for the form to close; a refusal fails
   * at once with the message the form shows. */
  const save = async () => {
    await page.getByTestId('check-save').click();
    const form = page.getByTestId('check-form');
    const refusal = page.getByTestId('check-form-error');
    await until(async () => (await form.count()) === 0 || (await refusal.count()) > 0, WAIT, 'the form to close');
    if ((await refusal.count()) > 0) throw new Error(`the check was refused: ${await refusal.textContent()}`);
  };
  const shot = async (name) => {
    if (!SHOTS) return;
    mkdirSync(SHOTS, { recursive: true });
    await page.screenshot({ path: `${SHOTS}/${name}` });
  };

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'checks lab' })).body.project_id;
    const mk = async (body) => {
      const r = await rest('POST', `/projects/${pid}/nodes`, body);
      assert.equal(r.status, 201, JSON.stringify(r.body));
      return r.body.node_id;
    };
    const pc1 = await mk({ node_type: 'vpcs', name: 'PC1', x: -150, y: 0, properties: { startup_script: 'set pcname PC1\nip 10.0.0.1/24\n' } });
    const pc2 = await mk({ node_type: 'vpcs', name: 'PC2', x: 150, y: 0, properties: { startup_script: 'set pcname PC2\nip 10.0.0.2/24\n' } });
    const l = await rest('POST', `/projects/${pid}/links`, {
      nodes: [{ node_id: pc1, adapter_number: 0, port_number: 0 }, { node_id: pc2, adapter_number: 0, port_number: 0 }],
    });
    assert.equal(l.status, 201);
    // Started now: they boot while the checks are written.
    assert.equal((await rest('POST', `/projects/${pid}/nodes/start`, {})).status, 204);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await canvasNode(page, 'PC2').waitFor();
  });

  after(async () => {
    await screenshot(page, 'checks.png');
    if (pid) await rest?.('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
  });

  test('the toolbar opens the panel: no checks yet, and what lint found', async () => {
    await page.getByTestId('toggle-checks').click();
    await page.getByTestId('checks-panel').waitFor();
    await page.getByTestId('checks-empty').waitFor();
    // Two hosts in one subnet on one wire: lint finds nothing.
    await page.getByTestId('lint-findings').getByText('Nothing found').waitFor();
    assert.equal(await page.getByTestId('checks-run-all').isDisabled(), true, 'Run all waits for a check');
    // Ctrl+Shift+K closes it and opens it again.
    await page.locator('.svelte-flow__pane').click({ position: { x: 20, y: 20 } });
    await page.keyboard.press('Control+Shift+K');
    await page.getByTestId('checks-panel').waitFor({ state: 'detached' });
    await page.keyboard.press('Control+Shift+K');
    await page.getByTestId('checks-panel').waitFor();
  });

  test('a reach check by picking PC1 and PC2, and one to an address nobody holds: both in the checks file', async () => {
    await page.getByTestId('checks-add').click();
    const form = page.getByTestId('check-form');
    // Saving an empty form says what it lacks, and sends nothing.
    await page.getByTestId('check-save').click();
    await page.getByTestId('check-hint-from').waitFor();
    assert.deepEqual((await rest('GET', `/projects/${pid}/checks`)).body.checks, []);
    await form.getByTestId('check-from').selectOption('PC1');
    await form.getByTestId('check-to').selectOption('PC2');
    await save();
    await row('reach-pc1-pc2').waitFor();

    await page.getByTestId('checks-add').click();
    await form.getByTestId('check-from').selectOption('PC1');
    await form.getByTestId('check-to-mode').click();
    await form.getByTestId('check-to-address').fill('10.0.0.99');
    await form.getByTestId('check-id').fill('nobody-at-99');
    await save();
    await row('nobody-at-99').waitFor();

    const saved = (await rest('GET', `/projects/${pid}/checks`)).body;
    assert.deepEqual(saved.checks, [
      { id: 'reach-pc1-pc2', kind: 'reach', from: 'PC1', to: 'PC2', expect: 'reply' },
      { id: 'nobody-at-99', kind: 'reach', from: 'PC1', to: '10.0.0.99', expect: 'reply' },
    ]);
    assert.equal(await row('reach-pc1-pc2').getAttribute('data-verdict'), 'none');
    assert.equal((await row('reach-pc1-pc2').getByTestId('check-verdict').textContent()).trim(), 'Not run');
  });

  test('Run all: a pass for the hosts that ping, a fail for the address, in words and colour', async () => {
    await shot('checks-panel-before-run.png');
    await page.getByTestId('checks-run-all').click();
    // The run answers at once; check.run.updated carries each verdict.
    await until(async () => (await page.getByTestId('checks-summary').getAttribute('data-status').catch(() => null)) === 'finished', 25_000, 'the run to finish');
    const pass = row('reach-pc1-pc2');
    const fail = row('nobody-at-99');
    assert.equal(await pass.getAttribute('data-verdict'), 'pass');
    assert.equal((await pass.getByTestId('check-verdict').textContent()).trim(), 'Pass');
    assert.equal(await fail.getAttribute('data-verdict'), 'fail');
    assert.equal((await fail.getByTestId('check-verdict').textContent()).trim(), 'Fail');
    assert.match(await fail.getByTestId('check-message').textContent(), /\S/, 'a failure says what was found');
    assert.match(await page.getByTestId('checks-summary').textContent(), /1 passed, 1 failed/);
    const run = (await rest('GET', `/projects/${pid}/checks/run`)).body;
    assert.deepEqual(run.results.map((r) => [r.check_id, r.verdict]), [['reach-pc1-pc2', 'pass'], ['nobody-at-99', 'fail']]);
    await shot('checks-panel-verdicts.png');
  });

  test('a reload shows the newest run', async () => {
    await page.reload({ waitUntil: 'domcontentloaded' });
    await page.getByTestId('checks-panel').waitFor(); // the panel stays open across reloads
    await until(async () => (await row('reach-pc1-pc2').getAttribute('data-verdict').catch(() => null)) === 'pass', WAIT, 'the pass after the reload');
    assert.equal(await row('nobody-at-99').getAttribute('data-verdict'), 'fail');
    assert.deepEqual(pageErrors, []);
  });
});
