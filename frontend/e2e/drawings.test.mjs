// Drawings on the canvas: one written over REST (GNS3's own SVG, and a
// hostile one) shows, safely; another client's changes follow live; a note
// is added, edited, moved, locked and deleted from the UI, with the
// server's state checked over REST.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, until as untilIn, screenshot } from './harness.mjs';

const WAIT = 5_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);

const RECT = '<svg height="100" width="200"><rect fill="#ff0000" fill-opacity="1.0" height="100" stroke="#000000" stroke-width="2" width="200" /></svg>';
const HOSTILE = '<svg width="50" height="50" onload="window.__pwned=1"><script>window.__pwned=2</script>'
  + '<rect width="50" height="50" onclick="window.__pwned=3" fill="#00ff00"/><image href="javascript:window.__pwned=4"/>'
  + '<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="window.__pwned=5"/></foreignObject></svg>';

describe('drawings on the canvas', { timeout: 120_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  let rectId;
  let hostileId;
  let noteId;
  const pageErrors = [];
  const drawingsOnServer = async () => (await rest('GET', `/projects/${pid}/drawings`)).body;
  const onCanvas = (id) => page.locator(`.svelte-flow__node[data-id="${id}"]`);
  /** clickNote clicks the note where it shows: by now it is moved to the
   * canvas's right edge, its middle under the property panel. */
  const clickNote = () => onCanvas(noteId).click({ position: { x: 10, y: 8 } });
  /** dragCorner drags a selected drawing's bottom right handle by (dx, dy), in steps. */
  async function dragCorner(id, dx, dy, steps) {
    const c = await onCanvas(id).locator('.svelte-flow__resize-control.handle.bottom.right').boundingBox();
    await page.mouse.move(c.x + c.width / 2, c.y + c.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= steps; i++) await page.mouse.move(c.x + c.width / 2 + (i * dx) / steps, c.y + c.height / 2 + (i * dy) / steps);
    await page.mouse.up();
  }

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'drawing lab' })).body.project_id;
    const r = await rest('POST', `/projects/${pid}/drawings`, { svg: RECT, x: 20, y: 20, z: 0 });
    assert.equal(r.status, 201);
    rectId = r.body.drawing_id;
    hostileId = (await rest('POST', `/projects/${pid}/drawings`, { svg: HOSTILE, x: 300, y: 20 })).body.drawing_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    page.on('dialog', (d) => d.dismiss());
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await onCanvas(rectId).waitFor();
  });

  after(async () => {
    await screenshot(page, 'drawings.png');
    await browser?.close();
    await server?.stop();
  });

  test('a drawing made over REST shows, and a hostile one runs nothing', async () => {
    const rect = onCanvas(rectId).locator('rect');
    assert.equal(await rect.getAttribute('fill'), '#ff0000');
    const box = await onCanvas(rectId).boundingBox();
    assert.ok(Math.abs(box.width - 200) < 2 && Math.abs(box.height - 100) < 2, JSON.stringify(box));
    const hostile = onCanvas(hostileId);
    await hostile.waitFor();
    assert.equal(await hostile.locator('rect').getAttribute('fill'), '#00ff00');
    assert.equal(await hostile.locator('script, image, foreignObject, img, [onload], [onclick]').count(), 0);
    await hostile.click();
    assert.equal(await page.evaluate(() => window.__pwned), undefined);
  });

  test('resizes a rectangle by its corner: the svg\'s size changes on the server', async () => {
    await onCanvas(rectId).click({ position: { x: 100, y: 50 } });
    await page.getByTestId('drawing-panel').waitFor();
    await dragCorner(rectId, 50, 30, 5);
    const d = await until(async () => {
      const got = (await rest('GET', `/projects/${pid}/drawings/${rectId}`)).body;
      return got.svg !== RECT ? got : null;
    }, WAIT, 'the resized rectangle on the server');
    const w = Number(/<svg height="(\d+)" width="(\d+)"/.exec(d.svg)?.[2]);
    const h = Number(/<svg height="(\d+)" width="(\d+)"/.exec(d.svg)?.[1]);
    assert.ok(w > 230 && w < 270 && h > 115 && h < 145, d.svg);
    assert.match(d.svg, new RegExp(`<rect width="${w}" height="${h}" fill="#ff0000"`));
    assert.deepEqual([d.x, d.y], [20, 20]);
  });

  test('resizes an ellipse and a line by their corner too: the svg\'s shapes follow', async () => {
    const shapes = {
      ellipse: '<svg height="60" width="120"><ellipse cx="60" cy="30" fill="#ffffff" fill-opacity="1.0" rx="60" ry="30" stroke="#000000" stroke-width="2" /></svg>',
      line: '<svg height="40" width="120"><line stroke="#000000" stroke-width="2" x1="0" x2="120" y1="0" y2="40" /></svg>',
    };
    for (const [tag, svg] of Object.entries(shapes)) {
      const id = (await rest('POST', `/projects/${pid}/drawings`, { svg, x: tag === 'line' ? 320 : 40, y: 480 })).body.drawing_id;
      await onCanvas(id).locator(tag).waitFor({ state: 'attached' });
      await onCanvas(id).click({ position: { x: 60, y: 20 } });
      await dragCorner(id, 60, 30, 6);
      const d = await until(async () => {
        const got = (await rest('GET', `/projects/${pid}/drawings/${id}`)).body;
        return got.svg !== svg ? got : null;
      }, WAIT, `the resized ${tag} on the server`);
      const size = (text) => /<svg height="(\d+)" width="(\d+)"/.exec(text).slice(1).map(Number);
      const [h0, w0] = size(svg);
      const [h, w] = size(d.svg);
      assert.ok(Math.abs(w - w0 - 60) <= 10 && Math.abs(h - h0 - 30) <= 10, d.svg); // as far as the corner went
      if (tag === 'ellipse') assert.match(d.svg, new RegExp(`<ellipse cx="${w / 2}" cy="${h / 2}" rx="${w / 2}" ry="${h / 2}"`));
      else assert.match(d.svg, new RegExp(`<line x1="0" y1="0" x2="${w}" y2="${h}"`));
      assert.equal((await rest('DELETE', `/projects/${pid}/drawings/${id}`)).status, 204);
      await onCanvas(id).waitFor({ state: 'detached' });
    }
  });

  test('follows another client: created, moved, deleted', async () => {
    const made = (await rest('POST', `/projects/${pid}/drawings`, {
      svg: '<svg height="4" width="200"><line stroke="#000000" stroke-width="2" x1="0" x2="200" y1="0" y2="0" /></svg>', x: 40, y: 300,
    })).body;
    await onCanvas(made.drawing_id).locator('line').waitFor({ state: 'attached' }); // level: no height
    const before = await onCanvas(made.drawing_id).boundingBox();
    assert.equal((await rest('PUT', `/projects/${pid}/drawings/${made.drawing_id}`, { x: 140 })).status, 201);
    await until(async () => (await onCanvas(made.drawing_id).boundingBox()).x > before.x + 90, WAIT, 'the line to move');
    assert.equal((await onCanvas(made.drawing_id).locator('line').count()), 1, 'its svg is kept when the event leaves it out');
    assert.equal((await rest('DELETE', `/projects/${pid}/drawings/${made.drawing_id}`)).status, 204);
    await onCanvas(made.drawing_id).waitFor({ state: 'detached' });
  });

  test('adds a note from the toolbar and edits its text', async () => {
    const known = new Set((await drawingsOnServer()).map((d) => d.drawing_id));
    await page.getByTestId('draw-text').click();
    await page.getByTestId('drawing-hint').waitFor();
    const canvas = await page.getByTestId('canvas').boundingBox();
    // Where the note stood on the screen before the palette grew by 46 px:
    // dragged 120 px right it ends under the property panel, its pointer
    // short of the 40 px edge where the canvas pans along with a drag.
    await page.mouse.click(canvas.x + 474, canvas.y + 420);
    const note = await until(async () => (await drawingsOnServer()).find((d) => !known.has(d.drawing_id)), WAIT, 'the note on the server');
    noteId = note.drawing_id;
    assert.match(note.svg, /<text[^>]*>Note<\/text>/);
    const panel = page.getByTestId('drawing-panel');
    await panel.waitFor();
    await onCanvas(noteId).dblclick();
    await until(() => page.evaluate(() => document.activeElement?.dataset?.testid === 'drawing-text'), WAIT, 'the text field focused');
    await page.keyboard.type('Core <site> A'); // replaces the selected text
    assert.equal(await page.getByTestId('drawing-text').inputValue(), 'Core <site> A');
    await page.getByTestId('drawing-save').click();
    await until(async () => (await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body.svg.includes('Core &lt;site&gt; A'), WAIT, 'the text on the server');
    await until(async () => (await onCanvas(noteId).locator('text').textContent()).includes('Core <site> A'), WAIT, 'the text on the canvas');
  });

  test('moves the note with one PUT at the end of the drag', async () => {
    const was = (await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body;
    let puts = 0;
    const count = (req) => { if (req.method() === 'PUT' && req.url().includes(`/drawings/${noteId}`)) puts++; };
    page.on('request', count);
    const b = await onCanvas(noteId).boundingBox();
    await page.mouse.move(b.x + 10, b.y + 8);
    await page.mouse.down();
    for (let i = 1; i <= 10; i++) await page.mouse.move(b.x + 10 + i * 12, b.y + 8 + i * 6);
    await page.mouse.up();
    const now = await until(async () => {
      const d = (await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body;
      return d.x !== was.x ? d : null;
    }, WAIT, 'the moved note on the server');
    // Stored where it shows (the view is at zoom 1: no node to fit to).
    const shown = await onCanvas(noteId).boundingBox();
    assert.ok(now.x - was.x > 80 && now.y - was.y > 30, JSON.stringify({ was, now }));
    assert.ok(Math.abs(now.x - was.x - (shown.x - b.x)) <= 2 && Math.abs(now.y - was.y - (shown.y - b.y)) <= 2, JSON.stringify({ was, now, b, shown }));
    page.off('request', count);
    assert.equal(puts, 1);
  });

  test('arrow keys nudge the note; a bad rotation shows the server\'s error by its field', async () => {
    const was = (await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body;
    await clickNote();
    for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
    await until(async () => (await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body.x === was.x + 30, WAIT, 'the nudged note on the server');
    await page.getByTestId('drawing-rotation').fill('999');
    await page.getByTestId('drawing-save').click();
    await page.getByTestId('error-rotation').waitFor();
    assert.equal((await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body.rotation, 0);
    await page.getByTestId('drawing-rotation').fill('15');
    await page.getByTestId('drawing-save').click();
    await until(async () => (await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body.rotation === 15, WAIT, 'the rotation on the server');
    await page.getByTestId('error-rotation').waitFor({ state: 'detached' });
  });

  test('a locked note is not deleted: the server\'s 409 shows; unlocked, Delete removes it', async () => {
    await clickNote();
    await page.getByTestId('drawing-lock').check();
    await until(async () => (await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body.locked, WAIT, 'locked on the server');
    await clickNote();
    await page.locator(`.svelte-flow__node.selected[data-id="${noteId}"]`).waitFor();
    await page.keyboard.press('Delete');
    await page.getByTestId('toast-error').filter({ hasText: /lock/i }).waitFor();
    assert.equal((await rest('GET', `/projects/${pid}/drawings/${noteId}`)).status, 200);
    await page.getByTestId('drawing-lock').uncheck();
    await until(async () => !(await rest('GET', `/projects/${pid}/drawings/${noteId}`)).body.locked, WAIT, 'unlocked on the server');
    await page.getByTestId('drawing-locked').waitFor({ state: 'detached' });
    await clickNote();
    await page.locator(`.svelte-flow__node.selected[data-id="${noteId}"]`).waitFor();
    await page.keyboard.press('Delete');
    await onCanvas(noteId).waitFor({ state: 'detached' });
    assert.equal((await rest('GET', `/projects/${pid}/drawings/${noteId}`)).status, 404);
  });

  test('raised no page errors', () => {
    assert.deepEqual(pageErrors.map(String), []);
  });
});
