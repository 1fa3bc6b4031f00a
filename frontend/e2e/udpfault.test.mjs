// A running node whose link breaks: the data plane's end of its UDP pair
// fails under nodedesk (decision 0066). The user must see it: the node
// stopped on the canvas and in the API, a log.error on the project's
// stream, and a notice that says what happened and what to do. The fault
// is made by a nodedesk built with -tags faulthook (faulthook.go): SIGUSR2
// breaks the ends of every running node, through the path a socket that
// fails takes.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { launchBrowser, restClient, startServer, until as untilIn, canvasNode } from './harness.mjs';

const WAIT = 15_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);
const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** faultBinary builds nodedesk with the fault hook beside the tested one
 * (NODEDESK_FAULT_BIN, if set, is used instead). */
function faultBinary(dir) {
  if (process.env.NODEDESK_FAULT_BIN) return process.env.NODEDESK_FAULT_BIN;
  const out = path.join(dir, 'nodedesk-faulthook');
  const r = spawnSync('go', ['build', '-tags', 'faulthook', '-o', out, '.'], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  if (r.status !== 0) throw new Error(`go build -tags faulthook failed:\n${r.stderr}`);
  return out;
}

describe('a link that breaks under a running node', { timeout: 400_000 }, () => {
  let binDir;
  let server;
  let browser;
  let page;
  let rest;
  let ws;
  let pid;
  let pc1;
  const events = [];

  before(async () => {
    binDir = mkdtempSync(path.join(tmpdir(), 'nodedesk-faulthook-'));
    const bin = faultBinary(binDir);
    const saved = process.env.NODEDESK_BIN;
    process.env.NODEDESK_BIN = bin;
    try {
      server = await startServer();
    } finally {
      process.env.NODEDESK_BIN = saved;
    }
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'udp fault' })).body.project_id;
    pc1 = (await rest('POST', `/projects/${pid}/nodes`, { name: 'PC1', node_type: 'vpcs', compute_id: 'local', x: 0, y: 0 })).body.node_id;
    const sw = (await rest('POST', `/projects/${pid}/nodes`, { name: 'Switch1', node_type: 'ethernet_switch', compute_id: 'local', x: 200, y: 0 })).body.node_id;
    const link = await rest('POST', `/projects/${pid}/links`, { nodes: [
      { node_id: pc1, adapter_number: 0, port_number: 0 }, { node_id: sw, adapter_number: 0, port_number: 0 }] });
    assert.equal(link.status, 201, JSON.stringify(link.body));
    ws = new WebSocket(`${server.url.replace('http', 'ws')}/v2/projects/${pid}/notifications/ws`);
    ws.on('message', (m) => events.push(JSON.parse(m.toString())));
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
  });

  after(async () => {
    ws?.close();
    if (pid) await rest?.('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
    await browser?.close();
    await server?.stop();
    if (binDir) rmSync(binDir, { recursive: true, force: true });
  });

  test('PC1 runs, then its end breaks: stopped on the canvas, in the API, on the stream, and a notice says what to do', async () => {
    const start = await rest('POST', `/projects/${pid}/nodes/${pc1}/start`);
    assert.equal(start.status, 200, JSON.stringify(start.body));
    const node = canvasNode(page, 'PC1');
    await until(async () => (await node.getAttribute('data-status')) === 'started', WAIT, 'PC1 started on the canvas');

    process.kill(server.pid, 'SIGUSR2');

    await until(async () => (await node.getAttribute('data-status')) === 'stopped', WAIT, 'PC1 shown stopped on the canvas');
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${pc1}`)).body.status, 'stopped');
    const said = await until(() => events.find((e) => e.action === 'log.error')?.event?.message, WAIT, 'a log.error on the stream');
    assert.match(said, /PC1's link stopped carrying frames: .*UDP port \d+.*start PC1 again/);
    assert.ok(events.some((e) => e.action === 'node.updated' && e.event.node_id === pc1 && e.event.status === 'stopped'),
      'a node.updated with PC1 stopped on the stream');
    const notice = page.getByTestId('toast-error').filter({ hasText: "PC1's link stopped carrying frames" });
    await notice.waitFor();
    assert.match(await notice.textContent(), /start PC1 again/);
  });
});
