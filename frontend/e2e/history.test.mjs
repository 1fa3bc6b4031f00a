// Undo, redo, the history panel, and copy/paste of a selection with its
// links, in a browser against a real nodedesk (issue 14): three edits made
// on the canvas are taken back by three Ctrl+Z and made again by three
// Ctrl+Shift+Z; a script's change says "(API)" and can be undone; two
// linked nodes pasted come with their link, selected, and one undo takes
// the paste back; the history panel goes back two steps at once.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

describe('undo, redo and copy/paste in the UI', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  let pc1;
  const pageErrors = [];
  const states = {};

  const node = (name) => canvasNode(page, name);
  /** The project as the server has it: node names at their places, and the links by node names. */
  const topology = async () => {
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    const { body: links } = await rest('GET', `/projects/${pid}/links`);
    const name = new Map(nodes.map((n) => [n.node_id, n.name]));
    return JSON.stringify({
      nodes: nodes.map((n) => `${n.name}@${n.x},${n.y}`).sort(),
      links: links.map((l) => l.nodes.map((e) => `${name.get(e.node_id)}:${e.adapter_number}/${e.port_number}`).sort().join('-')).sort(),
    });
  };
  /** The node names the canvas shows. */
  const shown = async () => (await page.locator('[data-testid="canvas-node"]').evaluateAll((els) => els.map((e) => e.dataset.name))).sort();
  const namesOf = (t) => JSON.parse(t).nodes.map((s) => s.split('@')[0]).sort();
  const reaches = async (want, what) => {
    await until(async () => (await topology()) === want, WAIT, what);
    await until(async () => JSON.stringify(await shown()) === JSON.stringify(namesOf(want)), WAIT, `the canvas to show ${what}`);
  };
  const undoButton = () => page.getByTestId('undo');

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'history lab' })).body.project_id;
    const { body: templates } = await rest('GET', '/templates');
    const vpcs = templates.find((t) => t.template_type === 'vpcs').template_id;
    pc1 = (await rest('POST', `/projects/${pid}/templates/${vpcs}`, { x: 0, y: 0 })).body.node_id;
    const pc2 = (await rest('POST', `/projects/${pid}/templates/${vpcs}`, { x: 300, y: 0 })).body.node_id;
    const made = await rest('POST', `/projects/${pid}/links`, {
      nodes: [{ node_id: pc1, adapter_number: 0, port_number: 0 }, { node_id: pc2, adapter_number: 0, port_number: 0 }],
    });
    assert.equal(made.status, 201);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await node('PC2').waitFor();
    // The toolbar read the history when the project opened: the link is the last change.
    await until(async () => /^Undo: .*\(API\)$/.test(await undoButton().getAttribute('aria-label')), WAIT, 'the undo label of the REST-made link');
  });

  after(async () => {
    await screenshot(page, 'history.png');
    await browser?.close();
    await server?.stop();
  });

  test('three edits, three Ctrl+Z: the canvas as it was; three Ctrl+Shift+Z: the edits back', async () => {
    states.before = await topology();
    // 1. Move PC1 by dragging it.
    const box = await node('PC1').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 60, box.y + box.height / 2 + 120, { steps: 8 });
    await page.mouse.up();
    await until(async () => (await rest('GET', `/projects/${pid}/nodes/${pc1}`)).body.y > 50, WAIT, 'the move to be saved');
    await until(async () => (await undoButton().getAttribute('aria-label')) === 'Undo: Moved PC1', WAIT, 'the undo label of the move, without an origin (this kind of client)');
    // 2. Rename PC2 in its panel.
    await clickNode(page, 'PC2');
    await page.getByTestId('field-name').fill('web');
    await page.getByTestId('node-save').click();
    await node('web').waitFor();
    // 3. Add a VPCS from the palette.
    await page.getByTestId('palette-vpcs').click();
    const canvas = await page.getByTestId('canvas').boundingBox();
    await page.mouse.click(canvas.x + canvas.width / 2, canvas.y + canvas.height - 120);
    await until(async () => (await shown()).length === 3, WAIT, 'the new node');
    await until(async () => /^Undo: Added PC\d$/.test(await undoButton().getAttribute('aria-label')), WAIT, 'the undo label of the new node');
    states.edited = await topology();
    assert.notEqual(states.edited, states.before);

    await page.keyboard.press('Escape');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Control+z');
    await reaches(states.before, 'the project before the three edits');
    assert.equal(await page.getByTestId('redo').isEnabled(), true);

    for (let i = 0; i < 3; i++) await page.keyboard.press('Control+Shift+z');
    await reaches(states.edited, 'the three edits again');
    assert.equal(await page.getByTestId('redo').isDisabled(), true, 'nothing left to redo');
  });

  test('a change made through the API says "(API)" and can be undone from the toolbar', async () => {
    const put = await fetch(`${server.url}/v2/projects/${pid}/nodes/${pc1}`, { method: 'PUT', body: JSON.stringify({ name: 'scripted' }), headers: { 'Content-Type': 'application/json' } });
    assert.equal(put.status, 200);
    await node('scripted').waitFor();
    await until(async () => /^Undo: Renamed .*\(API\)$/.test(await undoButton().getAttribute('aria-label')), WAIT, 'the undo label to name the API');
    assert.match(await undoButton().getAttribute('title'), /\(API\) \(Ctrl\+Z\)$/);
    await undoButton().click();
    await reaches(states.edited, 'the rename taken back');
  });

  test('copies two linked nodes and pastes them with their link, selected; one undo takes the paste back', async () => {
    await clickNode(page, 'PC1');
    await page.keyboard.down('Control');
    await clickNode(page, 'web');
    await page.keyboard.up('Control');
    await page.getByTestId('selection-panel').waitFor();
    await page.getByTestId('canvas').focus();
    await page.keyboard.press('Control+c');
    await page.keyboard.press('Control+v');
    await until(async () => (await shown()).length === 5, WAIT, 'two pasted nodes');
    await until(async () => (await rest('GET', `/projects/${pid}/links`)).body.length === 2, WAIT, 'the pasted link');
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    const { body: links } = await rest('GET', `/projects/${pid}/links`);
    const before = JSON.parse(states.edited);
    const fresh = nodes.filter((n) => !before.nodes.some((s) => s.startsWith(`${n.name}@`)));
    assert.equal(fresh.length, 2, 'two new nodes, with names of their own');
    const ids = new Set(fresh.map((n) => n.node_id));
    const joined = links.filter((l) => l.nodes.every((e) => ids.has(e.node_id)));
    assert.equal(joined.length, 1, 'the pasted nodes are linked');
    assert.deepEqual(joined[0].nodes.map((e) => [e.adapter_number, e.port_number]), [[0, 0], [0, 0]]);
    // Placed 40 px right and down of the originals.
    const orig = new Map(nodes.filter((n) => !ids.has(n.node_id)).map((n) => [n.name, n]));
    const pc1Now = orig.get('PC1');
    assert.ok(fresh.some((n) => n.x === pc1Now.x + 40 && n.y === pc1Now.y + 40), 'the copy of PC1 is offset by 40,40');
    // The copies are the selection.
    await until(async () => {
      const sel = await page.locator('[data-testid="canvas-node"].selected').evaluateAll((els) => els.map((e) => e.dataset.name).sort());
      return JSON.stringify(sel) === JSON.stringify(fresh.map((n) => n.name).sort());
    }, WAIT, 'the pasted nodes to be selected');
    await until(async () => /^Undo: Added /.test(await undoButton().getAttribute('aria-label')), WAIT, 'one entry for the paste');

    await page.keyboard.press('Control+z');
    await reaches(states.edited, 'the paste taken back whole');
  });

  test('the history panel goes back two steps at once, and shows what redo would make again greyed', async () => {
    await page.getByTestId('history-toggle').click();
    const panel = page.getByTestId('history-panel');
    await panel.waitFor();
    await panel.locator('[data-state="current"]').filter({ hasText: /Added PC\d/ }).waitFor();
    assert.ok(await panel.locator('[data-state="undone"]').count() >= 1, 'the undone paste is listed after the position');
    await panel.locator('[data-state="done"]').filter({ hasText: 'Moved PC1' }).click();
    // Back to right after the move: the rename and the new node are undone.
    await until(async () => JSON.stringify(await shown()) === JSON.stringify(['PC1', 'PC2']), WAIT, 'the two steps undone');
    const { body: moved } = await rest('GET', `/projects/${pid}/nodes/${pc1}`);
    assert.ok(moved.y > 50, 'the move stays');
    await panel.locator('[data-state="current"]').filter({ hasText: 'Moved PC1' }).waitFor();
    assert.equal(await panel.locator('[data-state="undone"]').count(), 3, 'the new node, the rename and the paste can be redone');
    assert.match(await panel.textContent(), /API/, 'the REST-made changes carry their origin');
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
