// A cloud port whose host interface came from a project file carries
// nothing until the user allows it: the node panel says so and one click
// on Allow agrees (the server then lists no waiting port).

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchBrowser, restClient, startServer, until, screenshot, clickNode } from './harness.mjs';

const WAIT = 5_000;
const PID = '0f1e2d3c-0000-4000-8000-0000000000e1';
const CLOUD = '0f1e2d3c-0000-4000-8000-0000000000e2';

// The author's interface: a name this machine does not have, so nothing
// here is ever opened.
const topology = {
  type: 'topology', revision: 9, version: '2.2.59', name: 'someone else', project_id: PID,
  topology: {
    computes: [], drawings: [], links: [],
    nodes: [{
      compute_id: 'local', node_id: CLOUD, node_type: 'cloud', name: 'Uplink', x: 0, y: 0,
      properties: { ports_mapping: [{ name: 'ndx-author0', port_number: 0, type: 'ethernet', interface: 'ndx-author0' }] },
    }],
  },
};

describe('ports from a project file', { timeout: 60_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  const pageErrors = [];

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'nodedesk-e2e-load-')), 'lab.gns3');
    writeFileSync(file, JSON.stringify(topology));
    const r = await rest('POST', '/projects/load', { path: file });
    assert.equal(r.status, 201, JSON.stringify(r.body));
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${PID}`, { waitUntil: 'domcontentloaded' });
  });

  after(async () => {
    await screenshot(page, 'cloudports.png');
    await browser?.close();
    await server?.stop();
  });

  test('the cloud panel names the waiting port and Allow agrees in one click', async () => {
    const { body: before } = await rest('GET', `/projects/${PID}/nodes/${CLOUD}`);
    assert.deepEqual(before.ports_waiting, ['ndx-author0']);
    await clickNode(page, 'Uplink');
    const notice = page.getByTestId('ports-waiting');
    await notice.waitFor();
    assert.match(await notice.textContent(), /Port ndx-author0 comes from the project file and carries nothing until you allow it/);
    await page.getByTestId('ports-allow').click();
    await notice.waitFor({ state: 'detached' });
    const after = await until(async () => {
      const { body } = await rest('GET', `/projects/${PID}/nodes/${CLOUD}`);
      return body.ports_waiting === undefined ? body : null;
    }, WAIT, 'the server to list no waiting port');
    assert.equal(after.properties.ports_mapping[0].interface, 'ndx-author0');
    assert.deepEqual(pageErrors, []);
  });
});
