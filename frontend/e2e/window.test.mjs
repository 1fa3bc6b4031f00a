// The UI as it runs inside the Wails window: window.go.desktop.App and
// window.runtime exist, so every call must go through the bindings and
// every event through EventsOn("notification"). Here the bindings are a
// stand-in that behaves as the Go side does (same answers, errors as a
// JSON string {code, message, status}) by asking the real server; the page
// itself must never use fetch or a websocket.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, restClient, startServer } from './harness.mjs';

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

  const codes = { 400: 'invalid', 404: 'not_found', 409: 'conflict' };
  async function rest(method, path, body) {
    const res = await realFetch('/v2' + path, {
      method,
      headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 400) {
      const e = text ? JSON.parse(text) : {};
      // As Wails 2.16 does: the ErrorFormatter's JSON text, wrapped in an Error.
      throw new Error(JSON.stringify({ code: codes[res.status] ?? 'internal', message: e.message, status: res.status }));
    }
    return text ? JSON.parse(text) : null;
  }
  const e = encodeURIComponent;
  const routes = {
    Ready: () => 'ready',
    ListProjects: () => rest('GET', '/projects'),
    CreateProject: (b) => rest('POST', '/projects', b),
    UpdateProject: (id, b) => rest('PUT', `/projects/${e(id)}`, b),
    DeleteProject: (id) => rest('DELETE', `/projects/${e(id)}`),
    OpenProject: (id) => rest('POST', `/projects/${e(id)}/open`),
    CloseProject: (id) => rest('POST', `/projects/${e(id)}/close`),
    ListNodes: (p) => rest('GET', `/projects/${e(p)}/nodes`),
    GetNode: (p, n) => rest('GET', `/projects/${e(p)}/nodes/${e(n)}`),
    CreateNodeFromTemplate: (p, t, b) => rest('POST', `/projects/${e(p)}/templates/${e(t)}`, b),
    UpdateNode: (p, n, b) => rest('PUT', `/projects/${e(p)}/nodes/${e(n)}`, b),
    DeleteNode: (p, n) => rest('DELETE', `/projects/${e(p)}/nodes/${e(n)}`),
    DuplicateNode: (p, n, b) => rest('POST', `/projects/${e(p)}/nodes/${e(n)}/duplicate`, b),
    NodeAction: (p, n, a) => rest('POST', `/projects/${e(p)}/nodes/${e(n)}/${a}`),
    ProjectAction: (p, a) => rest('POST', `/projects/${e(p)}/nodes/${a}`),
    ListLinks: (p) => rest('GET', `/projects/${e(p)}/links`),
    CreateLink: (p, b) => rest('POST', `/projects/${e(p)}/links`, b),
    UpdateLink: (p, l, b) => rest('PUT', `/projects/${e(p)}/links/${e(l)}`, b),
    DeleteLink: (p, l) => rest('DELETE', `/projects/${e(p)}/links/${e(l)}`),
    ListTemplates: () => rest('GET', '/templates'),
    OpenConsole: () => null, // the real one starts x-terminal-emulator
  };
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
      if (name !== 'notification') throw new Error(`unexpected event ${name}`);
      listeners.add(cb);
      if (!started) {
        started = true;
        follow('/notifications/ws', null);
        rest('GET', '/projects').then((ps) => ps.forEach((p) => followProject(p.project_id)));
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
  const calls = () => page.evaluate(() => window.__calls.map((c) => c.name));
  const node = (name) => page.locator(`[data-testid="canvas-node"][data-name="${name}"]`);

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
    assert.ok(names.includes('ListProjects') && names.includes('ListTemplates'));
  });

  test('creates a project and adds a node through the bindings', async () => {
    await page.getByTestId('start-project-name').fill('window lab');
    await page.getByTestId('start-create').click();
    await page.getByTestId('project-title').filter({ hasText: 'window lab' }).waitFor();
    await page.getByTestId('palette-vpcs').click();
    await page.getByTestId('canvas').click({ position: { x: 260, y: 220 } });
    await node('PC1').waitFor();
    const names = await calls();
    assert.ok(names.includes('CreateProject'));
    assert.ok(names.includes('CreateNodeFromTemplate'));
    assert.ok(names.includes('ListNodes') && names.includes('ListLinks'));
  });

  test('shows a binding error next to its field', async () => {
    await node('PC1').click();
    await page.getByTestId('field-console').fill('80');
    await page.getByTestId('node-save').click();
    await page.getByTestId('error-console').filter({ hasText: 'Console port 80' }).waitFor();
    const last = await page.evaluate(() => window.__calls.filter((c) => c.name === 'UpdateNode').at(-1));
    assert.deepEqual(last.args[2], { console: 80 });
    await page.getByTestId('node-revert').click();
  });

  test('follows changes made elsewhere through the runtime events', async () => {
    const { body: projects } = await rest('GET', '/projects');
    const pid = projects.find((p) => p.name === 'window lab').project_id;
    const { body: nodes } = await rest('GET', `/projects/${pid}/nodes`);
    await rest('PUT', `/projects/${pid}/nodes/${nodes[0].node_id}`, { name: 'host-a' });
    await node('host-a').waitFor({ timeout: 1000 });
  });

  test('opens the console through the binding', async () => {
    await node('host-a').click();
    await page.getByTestId('node-console').click();
    await page.getByTestId('toast-info').filter({ hasText: 'Opened the console of host-a' }).waitFor();
    assert.ok((await calls()).includes('OpenConsole'));
    assert.equal(await page.getByTestId('console-dialog').count(), 0);
  });

  test('never used fetch or a websocket of its own, and raised no page errors', async () => {
    assert.deepEqual(await page.evaluate(() => window.__stray), []);
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});
