// Who keeps a lab open (decision 0069): a page of nodedesk keeps every
// auto_close project open while it is open, whichever project it shows;
// once no page shows nodedesk, nodedesk closes them by itself and, when
// the user comes back and opens one, says when, why, and what became of
// its nodes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchBrowser, restClient, startServer, until, screenshot } from './harness.mjs';

describe('auto_close and the pages of nodedesk', () => {
  let server, browser, rest, page;

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    rest = restClient(server.url);
  });

  after(async () => {
    await screenshot(page, 'viewers.png');
    await browser?.close();
    await server?.stop();
  });

  const project = async (id) => (await rest('GET', `/projects/${id}`)).body;
  const openInSidebar = async (p, name) => {
    await p.locator(`[data-testid="project-item"][data-name="${name}"] button.open`).click();
    await p.getByTestId('project-title').filter({ hasText: new RegExp(`^${name}$`) }).waitFor();
  };

  test('a lab left in another project stays open; closed once no page shows nodedesk, which says so on return', async () => {
    const lab = (await rest('POST', '/projects', { name: 'lab left running' })).body;
    const other = (await rest('POST', '/projects', { name: 'another project' })).body;
    assert.equal(lab.auto_close, true, 'a new project has auto_close, as in GNS3');

    page = await browser.context.newPage();
    await page.goto(server.url);
    await openInSidebar(page, 'lab left running');
    await openInSidebar(page, 'another project'); // the lab's stream is left: GNS3 would close it 5 s later
    await until(() => server.log().includes('auto_close: kept open'), 20_000, 'nodedesk deciding about the lab left');
    assert.equal((await project(lab.project_id)).status, 'opened', 'the lab the user switched away from is still open');

    await page.close(); // the last page of nodedesk: nothing shows the projects now
    page = null;
    await until(async () => (await project(lab.project_id)).status === 'closed', 20_000, 'nodedesk closing the lab nobody shows');
    const closed = await project(lab.project_id);
    assert.match(closed.closure?.message ?? '', /nodedesk closed this project at \d\d:\d\d/);
    assert.equal((await project(other.project_id)).status, 'closed');

    page = await browser.context.newPage(); // the user comes back
    await page.goto(server.url);
    await openInSidebar(page, 'lab left running');
    const notice = page.getByTestId('toast-info').filter({ hasText: 'nodedesk closed this project at' });
    await notice.waitFor();
    assert.match(await notice.innerText(), /its nodes were stopped/);
    const reopened = await project(lab.project_id);
    assert.equal(reopened.status, 'opened');
    assert.equal(reopened.closure, undefined, 'opening the lab forgets the note');
  });
});

describe('what a nodedesk that did not shut down left', () => {
  let server, browser, page;

  after(async () => {
    await screenshot(page, 'leftovers.png');
    await browser?.close();
    await server?.stop();
  });

  test('the page says what the start cleaned up and what to do, until the user has read it', async () => {
    // An upload a killed nodedesk was spooling, in the data folder the next one starts on.
    const dir = mkdtempSync(path.join(tmpdir(), 'nodedesk-e2e-'));
    const upload = path.join(dir, 'projects', '.upload-7d1c9a52-3b7e-4f5e-9a49-0c1d2e3f4a5b');
    mkdirSync(path.dirname(upload), { recursive: true });
    writeFileSync(upload, 'half an archive');
    server = await startServer({ dir });
    browser = await launchBrowser();
    assert.equal(existsSync(upload), false, 'the start removed the cut-short upload');

    page = await browser.context.newPage();
    await page.goto(server.url);
    const notice = page.getByTestId('toast-error').filter({ hasText: 'did not shut down' });
    await notice.waitFor();
    assert.match(await notice.innerText(), /import or upload them again/);
    await notice.getByTestId('toast-action').click(); // Got it
    await until(async () => (await restClient(server.url)('GET', '/leftovers')).body.message === '', 5_000, 'the leftovers dismissed');
    const asked = page.waitForResponse((r) => r.url().endsWith('/v2/leftovers'));
    await page.reload();
    await asked; // the page has asked again, and has been told nothing
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    assert.equal(await page.getByTestId('toast-error').count(), 0, 'a page loaded after the user read it says nothing');
  });
});
