// Opening a real-sized GNS3 project from a file, end to end: a .gns3 of
// 200 nodes (60 Ethernet switches, 140 VPCS) and 300 links, picked with
// Open… in Debian's chromium against a real nodedesk. Measures, on the
// page's clock, from the file being chosen to the canvas showing the whole
// project (toolbar counts 200 nodes and 300 links, the view fitted, every
// node in the DOM, every link drawn), prints one row per open and exits
// non-zero when an open takes over 1 s (issue 13's target).
//
//   NODEDESK_BIN=…/build/bin/nodedesk-server node e2e/import.perf.mjs
//
// Not an e2e test (their glob is e2e/*.test.mjs); `make bench` runs it.
// PERF_OPENS (default 3): how many times the file is opened, each as a new
// project.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchBrowser, startServer } from './harness.mjs';

const OPEN_LIMIT_MS = 1000;
const SWITCHES = 60; // 8 ports each
const PCS = 140; // 1 port each
const LINKS = 300;
const OPENS = Math.max(1, Number(process.env.PERF_OPENS ?? 3));

/** uuid makes the n-th id of a kind, readable in a failure. */
const uuid = (kind, n) => `${kind}-0000-4000-8000-${String(n).padStart(12, '0')}`;

/** labFile is a GNS3 2.2 project file: every PC on a switch port, then
 * switches joined port to port until there are LINKS links; no port twice. */
function labFile() {
  const free = Array.from({ length: SWITCHES }, () => [0, 1, 2, 3, 4, 5, 6, 7]);
  const node = (id, type, name, x, y, props, symbol) => ({
    compute_id: 'local', console: null, console_auto_start: false, console_type: type === 'vpcs' ? 'telnet' : 'none',
    custom_adapters: [], first_port_name: null, height: 59, width: 65, label: { rotation: 0, style: 'font-size: 10.0pt;', text: name, x: 0, y: -25 },
    locked: false, name, node_id: id, node_type: type, port_name_format: 'Ethernet{0}', port_segment_size: 0, properties: props,
    symbol, template_id: null, x, y, z: 1,
  });
  const nodes = [];
  const links = [];
  const end = (id, port) => ({ adapter_number: 0, node_id: id, port_number: port });
  for (let s = 0; s < SWITCHES; s++) {
    nodes.push(node(uuid('aaaaaaaa', s), 'ethernet_switch', `SW${s + 1}`, (s % 10) * 300, Math.floor(s / 10) * 260, {}, ':/symbols/ethernet_switch.svg'));
  }
  for (let p = 0; p < PCS; p++) {
    const s = p % SWITCHES;
    const id = uuid('bbbbbbbb', p);
    nodes.push(node(id, 'vpcs', `PC${p + 1}`, (s % 10) * 300 + 40 * Math.floor(p / SWITCHES), Math.floor(s / 10) * 260 + 120, {}, ':/symbols/vpcs_guest.svg'));
    links.push({ link_id: uuid('cccccccc', links.length), filters: {}, link_style: {}, suspend: false, nodes: [end(id, 0), end(uuid('aaaaaaaa', s), free[s].shift())] });
  }
  for (let d = 1; links.length < LINKS; d++) {
    for (let a = 0; a < SWITCHES && links.length < LINKS; a++) {
      const b = (a + d) % SWITCHES;
      if (free[a].length === 0 || free[b].length === 0) continue;
      links.push({ link_id: uuid('cccccccc', links.length), filters: {}, link_style: {}, suspend: false,
        nodes: [end(uuid('aaaaaaaa', a), free[a].shift()), end(uuid('aaaaaaaa', b), free[b].shift())] });
    }
  }
  return JSON.stringify({
    auto_close: true, auto_open: false, auto_start: false, drawing_grid_size: 25, grid_size: 75, name: 'campus',
    project_id: uuid('dddddddd', 0), revision: 9, scene_height: 1000, scene_width: 2000, show_grid: false,
    show_interface_labels: false, show_layers: false, snap_to_grid: false, supplier: null, variables: null, zoom: 100,
    topology: { computes: [], drawings: [], links, nodes }, type: 'topology', version: '2.2.59',
  }, null, 4);
}

/** shown is true in the page once the canvas shows the whole project. */
function shown({ wantNodes, wantLinks }) {
  const counts = document.querySelector('[data-testid="topology-counts"]');
  if (!counts || counts.getAttribute('data-nodes') !== String(wantNodes) || counts.getAttribute('data-links') !== String(wantLinks)) return false;
  const canvas = document.querySelector('[data-testid="canvas"]');
  if (!canvas || canvas.getAttribute('data-view') !== 'fitted') return false;
  if (canvas.querySelectorAll('[data-testid="canvas-node"]').length !== wantNodes) return false;
  const layer = canvas.querySelector('[data-testid="link-layer"]');
  if (layer) return layer.getAttribute('data-links') === String(wantLinks) && !!layer.querySelector('path[d^="M"]');
  return canvas.querySelectorAll('.svelte-flow__edge path[d]').length >= wantLinks;
}

const dir = mkdtempSync(path.join(tmpdir(), 'nodedesk-import-perf-'));
const file = path.join(dir, 'campus.gns3');
writeFileSync(file, labFile());
const server = await startServer();
const browser = await launchBrowser();
const rows = [];
const failures = [];
try {
  for (let i = 0; i < OPENS; i++) {
    const page = await browser.context.newPage();
    page.setDefaultTimeout(30_000);
    await page.goto(`${server.url}/`, { waitUntil: 'load' });
    const input = page.getByTestId('project-file-input');
    await input.waitFor({ state: 'attached' });
    const t0 = await page.evaluate(() => performance.now());
    await input.setInputFiles(file);
    const h = await page.waitForFunction(shown, { wantNodes: SWITCHES + PCS, wantLinks: LINKS }, { polling: 'raf', timeout: 30_000 });
    await h.dispose();
    const ms = (await page.evaluate(() => performance.now())) - t0;
    rows.push([`open #${i + 1}`, `${ms.toFixed(0)} ms`]);
    if (ms > OPEN_LIMIT_MS) failures.push(`open #${i + 1} took ${ms.toFixed(0)} ms (limit ${OPEN_LIMIT_MS} ms)`);
    await page.close();
  }
} finally {
  await browser.close();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
console.log(`A ${SWITCHES + PCS}-node, ${LINKS}-link .gns3 opened with Open… (file chosen → whole project on the canvas):`);
for (const [k, v] of rows) console.log(`  ${k.padEnd(10)} ${v.padStart(8)}   (target ≤ ${OPEN_LIMIT_MS} ms)`);
if (failures.length) {
  console.error(failures.join('\n'));
  process.exit(1);
}
