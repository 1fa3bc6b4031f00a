// The UI as it runs inside the Wails window: window.go.desktop.App and
// window.runtime exist, so every API call must go through the one binding
// App.Call(method, path, body) and every event through
// EventsOn("notification"). Here the bindings are a stand-in that behaves as
// the Go side does (the API's status and body, unchanged) by asking the
// real server; the page itself must never use fetch or a websocket.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000;

/** Runs in the page before its scripts: a stand-in for Wails' bindings and runtime. */
function installFakeWails() {
  const realFetch = window.fetch.bind(window);
  const RealWS = window.WebSocket;
  const calls = [];
  const stray = [];
  window.__calls = calls;
  window.__stray = stray;
  window.fetch = (url, init) => {
    stray.push(`fetch ${url}`);
    return realFetch(url, init);
  };
  window.WebSocket = function (url) {
    stray.push(`websocket ${url}`);
    return new RealWS(url);
  };

  // App.Call hands the request to the API in-process and answers its status
  // and body unchanged, errors included: here, by asking the real server.
  async function call(method, path, body) {
    const res = await realFetch(path, {
      method,
      headers: body ? { 'Content-Type': 'application/json' } : undefined,
      body: body || undefined,
    });
    return { status: res.status, body: await res.text() };
  }
  // The console sessions: the door relays a node's console and emits its
  // output as "console:<id>" events ({data: base64} … {closed, reason});
  // here, through the server's console websocket.
  const consoleListeners = new Map();
  const emitConsole = (id, ev) => consoleListeners.get(`console:${id}`)?.forEach((cb) => cb(ev));
  const sessions = new Map();
  window.__consoleSessions = sessions;
  function consoleOpen(id, pid, nid) {
    return new Promise((resolve, reject) => {
      const ws = new RealWS(`ws://${location.host}/v2/projects/${pid}/nodes/${nid}/console/ws`);
      ws.binaryType = 'arraybuffer';
      let open = false;
      ws.onopen = () => {
        open = true;
        sessions.set(id, ws);
        resolve(null);
      };
      ws.onmessage = (m) => emitConsole(id, { data: btoa(String.fromCharCode(...new Uint8Array(m.data))) });
      ws.onclose = () => {
        sessions.delete(id);
        if (!open) reject(new Error(JSON.stringify({ message: 'The node is not started; start it to reach its console', code: 'conflict' })));
        else emitConsole(id, { closed: true, reason: 'the console closed the connection' });
      };
    });
  }
  const routes = {
    Ready: () => 'ready',
    Call: call,
    ConsoleOpen: consoleOpen,
    ConsoleWrite: (id, data) => {
      if (!sessions.has(id)) throw new Error(JSON.stringify({ message: `Console session ${id} has ended`, code: 'not_found' }));
      sessions.get(id).send(data);
      return null;
    },
    ConsoleClose: (id) => {
      sessions.get(id)?.close();
      return null;
    },
    OpenConsole: () => null, // the real one starts x-terminal-emulator
    // The real one starts Wireshark on the capture stream; here, as on a
    // machine without Wireshark, it names the file.
    OpenCapture: async (pid, lid) => {
      const l = JSON.parse((await call('GET', `/v2/projects/${pid}/links/${lid}`)).body);
      if (!l.capturing) throw new Error(JSON.stringify({ message: 'This link is not capturing; start a capture first, then open it in Wireshark', code: 'conflict' }));
      const reason = `Wireshark is not installed: install it (sudo apt-get install wireshark) and try again, or open ${l.capture_file_path} in a capture viewer`;
      return { opened: false, file_name: l.capture_file_name, path: l.capture_file_path, reason };
    },
  };
  // The project files: the real ones show the native Open and Save
  // dialogs and move the bytes in Go; here a dialog's answer is made up
  // and the "imported" project is created over the API.
  async function bringIn(name) {
    const r = await call('POST', '/v2/projects', JSON.stringify({ name }));
    return JSON.parse(r.body).project_id;
  }
  routes.OpenProjectFile = () => bringIn('from the dialog');
  routes.ImportProjectFile = (path) => bringIn(path.split('/').pop().replace(/\.gns3(project)?$/, ''));
  routes.ExportProject = async (pid) => `/home/user/${JSON.parse((await call('GET', `/v2/projects/${pid}`)).body).name}.gns3project`;
  const App = {};
  for (const [name, fn] of Object.entries(routes)) {
    App[name] = async (...args) => {
      calls.push({ name, args: JSON.parse(JSON.stringify(args)) });
      return fn(...args);
    };
  }
  window.go = { desktop: { App } };

  // runtime.EventsOn("notification"): every event of every project, as the
  // Go side emits them: {action, project_id, event}.
  const listeners = new Set();
  const emit = (msg) => listeners.forEach((cb) => cb(msg));
  const followed = new Set();
  function follow(path, pid) {
    const ws = new RealWS(`ws://${location.host}/v2${path}`);
    ws.onmessage = (m) => {
      const { action, event } = JSON.parse(m.data);
      if (action === 'ping' || action === 'compute.updated') return;
      const project = pid ?? event.project_id;
      emit({ action, project_id: project, event });
      if (action === 'project.created' || action === 'project.opened') followProject(event.project_id);
    };
  }
  function followProject(pid) {
    if (followed.has(pid)) return;
    followed.add(pid);
    follow(`/projects/${pid}/notifications/ws`, pid);
  }
  let started = false;
  window.runtime = {
    EventsOn(name, cb) {
      if (name.startsWith('console:')) {
        if (!consoleListeners.has(name)) consoleListeners.set(name, new Set());
        consoleListeners.get(name).add(cb);
        return () => consoleListeners.get(name)?.delete(cb);
      }
      // A file dropped on the window: Wails emits its path.
      if (name === 'wails:file-drop') {
        window.__dropPaths = (paths) => cb(100, 100, paths);
        return () => delete window.__dropPaths;
      }
      if (name !== 'notification') throw new Error(`unexpected event ${name}`);
      listeners.add(cb);
      if (!started) {
        started = true;
        follow('/notifications/ws', null);
        call('GET', '/v2/projects').then((r) => JSON.parse(r.body).forEach((p) => followProject(p.project_id)));
      }
      return () => listeners.delete(cb);
    },
  };
}

describe('nodedesk UI in the desktop window (bindings)', { timeout: 60_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;
  const pageErrors = [];
  // Each call as "Name" or, for Call, "METHOD /path".
  const calls = () => page.evaluate(() => window.__calls.map((c) => (c.name === 'Call' ? `${c.args[0]} ${c.args[1]}` : c.name)));
  const node = (name) => canvasNode(page, name);

  before(async () => {
    server = await startServer();
    rest = restClient(server.url);
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.addInitScript(installFakeWails);
    await page.goto(server.url, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('start-screen').getByTestId('start-project-name').waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('tells the window it is ready, once', async () => {
    const names = await calls();
    assert.equal(names.filter((n) => n === 'Ready').length, 1);
    assert.ok(names.includes('GET /v2/projects') && names.includes('GET /v2/templates') && names.includes('GET /v2/node_types'));
  });

  test('creates a project and adds a node through the bindings', async () => {
    await page.getByTestId('start-project-name').fill('window lab');
    await page.getByTestId('start-create').click();
    await page.getByTestId('project-title').filter({ hasText: 'window lab' }).waitFor();
    await page.getByTestId('palette-vpcs').click();
    await page.getByTestId('canvas').click({ position: { x: 260, y: 220 } });
    await node('PC1').waitFor();
    const names = await calls();
    assert.ok(names.includes('POST /v2/projects'));
    assert.ok(names.some((n) => /^POST \/v2\/projects\/[\w-]+\/templates\/[\w-]+$/.test(n)));
    assert.ok(names.some((n) => /^GET \/v2\/projects\/[\w-]+\/nodes$/.test(n)) && names.some((n) => /^GET \/v2\/projects\/[\w-]+\/links$/.test(n)));
  });

  test('shows a binding error next to its field', async () => {
    await clickNode(page, 'PC1');
    await page.getByTestId('field-console').fill('80');
    await page.getByTestId('node-save').click();
    await page.getByTestId('error-console').filter({ hasText: 'Console port 80' }).waitFor();
    const last = await page.evaluate(() => window.__calls.filter((c) => c.name === 'Call' && c.args[0] === 'PUT').at(-1));
    assert.deepEqual(JSON.parse(last.args[2]), { console: 80 });
    await page.getByTestId('node-revert').click();
  });

  test('follows changes made elsewhere through the runtime events', async () => {
    const { body: projects } = await rest('GET', '/projects');
    const pid = projects.find((p) => p.name === 'window lab').project_id;
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    await rest('PUT', `/projects/${pid}/nodes/${nodes[0].node_id}`, { name: 'host-a' });
    await node('host-a').waitFor({ timeout: 1000 });
  });

  test('opens the console in a terminal through the binding', async () => {
    await clickNode(page, 'host-a');
    await page.getByTestId('node-console-external').click();
    await page.getByTestId('toast-info').filter({ hasText: 'Opened the console of host-a' }).waitFor();
    assert.ok((await calls()).includes('OpenConsole'));
    assert.equal(await page.getByTestId('console-dialog').count(), 0);
  });

  test('opens a console tab through the console session bindings', async () => {
    const { body: projects } = await rest('GET', '/projects');
    const pid = projects.find((p) => p.name === 'window lab').project_id;
    const { body: sw } = await rest('POST', `/projects/${pid}/nodes`, { node_type: 'ethernet_switch', name: 'WSw', console_type: 'telnet', x: 400, y: 300 });
    await clickNode(page, 'WSw');
    await page.getByTestId('node-console').click();
    const tab = page.locator('[data-testid="console-tab"][data-name="WSw"][data-state="connected"]');
    await tab.waitFor();
    const screen = () => page.evaluate((id) => {
      const b = document.querySelector(`[data-testid="console-terminal"][data-node="${id}"] .screen`)?.xterm?.buffer.active;
      let s = '';
      for (let i = 0; b && i < b.length; i++) s += b.getLine(i)?.translateToString(true) + '\n';
      return s;
    }, sw.node_id);
    for (let i = 0; i < 50 && !(await screen()).includes('WSw> '); i++) await page.waitForTimeout(100);
    await page.locator(`[data-testid="console-terminal"][data-node="${sw.node_id}"] .xterm`).click();
    await page.keyboard.type('show vlan');
    await page.keyboard.press('Enter');
    for (let i = 0; i < 50 && !(await screen()).includes('VLAN'); i++) await page.waitForTimeout(100);
    assert.match(await screen(), /VLAN\s+Ports/);
    const names = await calls();
    assert.ok(names.includes('ConsoleOpen') && names.includes('ConsoleWrite'));
    // Closing the tab ends the session.
    await page.getByTestId('console-tab-close').click();
    await page.getByTestId('console-dock').waitFor({ state: 'detached' });
    assert.ok((await calls()).includes('ConsoleClose'));
    await rest('DELETE', `/projects/${pid}/nodes/${sw.node_id}`);
  });

  test('captures a link and asks the window to open it in Wireshark', async () => {
    const { body: projects } = await rest('GET', '/projects');
    const pid = projects.find((p) => p.name === 'window lab').project_id;
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    const { body: templates } = await rest('GET', '/templates');
    const vpcs = templates.find((t) => t.template_type === 'vpcs').template_id;
    const other = (await rest('POST', `/projects/${pid}/templates/${vpcs}`, { x: nodes[0].x + 300, y: nodes[0].y })).body;
    const { body: link } = await rest('POST', `/projects/${pid}/links`, {
      nodes: [{ node_id: nodes[0].node_id, adapter_number: 0, port_number: 0 }, { node_id: other.node_id, adapter_number: 0, port_number: 0 }],
    });
    const edge = page.locator(`.svelte-flow__edge[data-id="${link.link_id}"]`);
    await edge.waitFor({ state: 'attached' });
    const box = await edge.locator('path').first().boundingBox();
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.getByTestId('capture-start').click();
    await page.getByTestId('capture-status').waitFor();
    const { body: capturing } = await rest('GET', `/projects/${pid}/links/${link.link_id}`);
    assert.equal(await page.getByTestId('capture-path').textContent(), capturing.capture_file_path);
    assert.equal(await page.getByTestId('capture-download').count(), 0, 'the window has no pcap URL to give');
    await page.getByTestId('capture-open').click();
    await page.getByTestId('capture-reason').filter({ hasText: 'Wireshark is not installed' }).waitFor();
    const last = await page.evaluate(() => window.__calls.filter((c) => c.name === 'OpenCapture').at(-1));
    assert.deepEqual(last.args, [pid, link.link_id]);
    await page.getByTestId('capture-stop').click();
    await page.getByTestId('capture-start').waitFor();
    assert.equal((await rest('GET', `/projects/${pid}/links/${link.link_id}`)).body.capturing, false);
  });

  test('opens a project file through the native Open dialog (Ctrl+O), not the page\'s picker', async () => {
    let chooser = false;
    page.once('filechooser', () => (chooser = true));
    await page.getByTestId('canvas').click({ position: { x: 600, y: 500 } });
    await page.keyboard.press('Control+o');
    await page.getByTestId('project-title').filter({ hasText: 'from the dialog' }).waitFor();
    await page.getByTestId('toast-success').filter({ hasText: 'Opened from the dialog' }).waitFor();
    const names = await calls();
    assert.ok(names.includes('OpenProjectFile'));
    assert.equal(chooser, false);
  });

  test('opens a file dropped on the window by its path', async () => {
    await page.evaluate(() => window.__dropPaths(['/home/user/labs/dropped lab.gns3project']));
    await page.getByTestId('project-title').filter({ hasText: 'dropped lab' }).waitFor();
    const last = await page.evaluate(() => window.__calls.filter((c) => c.name === 'ImportProjectFile').at(-1));
    assert.deepEqual(last.args, ['/home/user/labs/dropped lab.gns3project']);
  });

  test('exports through the door, which asks where with the native Save dialog', async () => {
    await page.getByTestId('project-export').click();
    const dialog = page.getByTestId('export-dialog');
    await dialog.getByTestId('export-reset-macs').check();
    await dialog.getByTestId('export-images').check();
    assert.match(await dialog.getByTestId('export-submit').textContent(), /Export…/);
    await dialog.getByTestId('export-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await page.getByTestId('toast-success').filter({ hasText: 'Exported dropped lab to /home/user/dropped lab.gns3project' }).waitFor();
    const last = await page.evaluate(() => window.__calls.filter((c) => c.name === 'ExportProject').at(-1));
    const { body: projects } = await rest('GET', '/projects');
    assert.deepEqual(last.args, [projects.find((p) => p.name === 'dropped lab').project_id, { include_snapshots: false, reset_mac_addresses: true, include_images: true }]);
  });

  test('never used fetch or a websocket of its own, and raised no page errors', async () => {
    assert.deepEqual(await page.evaluate(() => window.__stray), []);
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
