// Docker in the UI, against a real nodedesk and a private Docker Engine
// (scripts/test-dockerd.sh, with the offline test image) in Debian's
// chromium: the "New Docker template" dialog (its checks, the image
// picked from the engine's list, the name it gives), the template under
// its category in the palette, a node dragged from it onto the canvas and
// its panel (the container's properties, adapters changed to 2), its aux
// console's tab and an http console's browser link, then started: its
// console tab is the image's shell, with the template's environment, and
// its aux tab a terminal on a shell in the container (Ctrl+Z typed there
// stays there); an http console's link opens the container's web page; and,
// with no Docker to reach, the dialog saying why while a typed image name
// still makes a template. Nothing here skips: without dockerd it fails,
// saying to run `make test`.

import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchBrowser, restClient, startDockerEngine, startServer, screenshot, until as untilIn, clickNode, canvasNode } from './harness.mjs';

const WAIT = 5_000; // bound for anything the UI does after a click
/** Bound for a container to start and its console to answer. */
const BOOT = 30_000;
const until = (fn, ms = WAIT, what = 'condition') => untilIn(fn, ms, what);
const IMAGE = 'nodedesk-test/busybox:latest';
/** Where the dialog's picture is left for a person (build/ is ignored by git). */
const BUILD_ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'build', 'artifacts');

describe('Docker in the UI', { timeout: 240_000 }, () => {
  let engine;
  let server;
  let browser;
  let page;
  let rest;
  let pid;
  const pageErrors = [];
  const palette = (group, name) => page.locator(`[data-testid="palette-group-${group}"] [data-name="${name}"]`);
  const node = (name) => canvasNode(page, name);
  /** The terminal of a node's console, or (kind 'aux') of its aux console. */
  const terminal = (nid, kind = 'console') => `[data-testid="console-terminal"][data-node="${nid}"][data-kind="${kind}"]`;
  /** The whole buffer of a node's terminal. */
  const screen = (nid, kind = 'console') =>
    page.evaluate((sel) => {
      const t = document.querySelector(`${sel} .screen`)?.xterm;
      if (!t) return '';
      const b = t.buffer.active;
      const lines = [];
      for (let i = 0; i < b.length; i++) lines.push(b.getLine(i)?.translateToString(true) ?? '');
      return lines.join('\n');
    }, terminal(nid, kind));

  before(async () => {
    engine = await startDockerEngine();
    server = await startServer({ env: { DOCKER_HOST: engine.host } });
    rest = restClient(server.url);
    pid = (await rest('POST', '/projects', { name: 'docker lab' })).body.project_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    page.on('pageerror', (e) => pageErrors.push(e));
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('canvas-empty').waitFor();
  });

  after(async () => {
    await screenshot(page, 'docker.png');
    if (rest && pid) {
      await rest('POST', `/projects/${pid}/nodes/stop`, {}).catch(() => {});
      await rest('DELETE', `/projects/${pid}`).catch(() => {});
    }
    await browser?.close();
    await server?.stop();
    await engine?.stop();
  });

  test('the template dialog says by field what cannot be sent, and makes nothing', async () => {
    const before = (await rest('GET', '/templates')).body.length;
    await page.getByTestId('new-docker-template').click();
    const dialog = page.getByTestId('docker-template-dialog');
    await dialog.waitFor();
    await page.getByTestId('dt-adapters').fill('two');
    await page.getByTestId('dt-submit').click();
    await page.getByTestId('error-dt-image').waitFor();
    assert.match(await page.getByTestId('error-dt-image').textContent(), /Pick an image from the list, or type/);
    assert.match(await page.getByTestId('error-dt-adapters').textContent(), /whole number/);
    assert.equal(await page.getByTestId('dt-adapters').getAttribute('aria-invalid'), 'true');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'detached' });
    assert.equal((await rest('GET', '/templates')).body.length, before, 'nothing was made');
  });

  test("makes a Docker template from an image of the engine's list, and shows it in the palette under its category", async () => {
    const listed = await rest('GET', '/computes/local/docker/images');
    assert.equal(listed.status, 200, `the engine's images are listed: ${JSON.stringify(listed.body)}`);
    assert.ok(listed.body.some((i) => i.image === IMAGE), `${IMAGE} is among ${JSON.stringify(listed.body)}`);

    await page.getByTestId('new-docker-template').click();
    const dialog = page.getByTestId('docker-template-dialog');
    await dialog.waitFor();
    const option = page.locator(`[data-testid="dt-image-option"][data-image="${IMAGE}"]`);
    await option.waitFor();
    await option.click();
    assert.equal(await page.getByTestId('dt-image-input').inputValue(), IMAGE);
    assert.equal(await option.getAttribute('aria-selected'), 'true');
    // The name follows the image, as the GNS3 wizard gives it.
    assert.equal(await page.getByTestId('dt-name').inputValue(), 'nodedesk-test-busybox');
    assert.equal(await page.getByTestId('dt-category').inputValue(), 'guest');
    await page.getByTestId('dt-adapters').fill('1');
    await page.getByTestId('dt-start_command').fill('/bin/sh');
    await page.getByTestId('dt-environment').fill('GREETING=hi\n\n  LAB=e2e  \n');
    await page.getByTestId('dt-console_type').selectOption('telnet');
    await page.getByTestId('dt-extra_hosts').fill('gateway:10.0.0.1');
    await page.getByTestId('dt-extra_volumes').fill('/data');
    await screenshot(page, 'docker-template-dialog.png');
    mkdirSync(BUILD_ARTIFACTS, { recursive: true });
    await dialog.screenshot({ path: path.join(BUILD_ARTIFACTS, 'docker-template-dialog.png') });
    await page.getByTestId('dt-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await palette('guest', 'nodedesk-test-busybox').waitFor();
    assert.equal(await page.locator('[data-testid="palette-group-guest"] h4').textContent(), 'End devices');
    assert.equal(await palette('guest', 'nodedesk-test-busybox').getAttribute('data-testid'), 'palette-docker');

    const tpl = (await rest('GET', '/templates')).body.find((x) => x.name === 'nodedesk-test-busybox');
    assert.ok(tpl, 'the template exists on the server');
    assert.equal(tpl.template_type, 'docker');
    assert.equal(tpl.category, 'guest');
    assert.equal(tpl.compute_id, 'local');
    const props = { ...tpl, ...(tpl.properties ?? {}) }; // the keys beside the common ones, as GNS3 keeps them
    assert.equal(props.image, IMAGE);
    assert.equal(props.adapters, 1);
    assert.equal(props.start_command, '/bin/sh');
    assert.equal(props.environment, 'GREETING=hi\nLAB=e2e');
    assert.equal(props.console_type, 'telnet');
    assert.equal(props.extra_hosts, 'gateway:10.0.0.1');
    assert.deepEqual(props.extra_volumes, ['/data']);
  });

  test("a node dragged from the template shows its container's properties; adapters changed to 2 give it two ports", async () => {
    const canvas = page.getByTestId('canvas');
    await palette('guest', 'nodedesk-test-busybox').dragTo(canvas, { targetPosition: { x: 420, y: 260 } });
    const made = await until(async () => (await rest('GET', `/projects/${pid}/nodes`)).body.find((n) => n.node_type === 'docker'), WAIT, 'the Docker node made');
    assert.equal(made.properties.image, IMAGE);
    assert.equal(made.ports.length, 1);
    await clickNode(page, made.name);
    const panel = page.getByTestId('node-panel');
    await panel.getByTestId('docker-properties').waitFor();
    assert.match(await panel.textContent(), /Docker container/);
    assert.equal(await panel.getByTestId('docker-image').inputValue(), IMAGE);
    assert.equal(await panel.getByTestId('docker-adapters').inputValue(), '1');
    assert.equal(await panel.getByTestId('docker-start_command').inputValue(), '/bin/sh');
    assert.equal(await panel.getByTestId('docker-environment').inputValue(), 'GREETING=hi\nLAB=e2e');
    assert.equal(await panel.getByTestId('docker-extra_volumes').inputValue(), '/data');
    assert.equal(await panel.getByTestId('field-console_type').inputValue(), 'telnet');
    assert.equal(await panel.getByTestId('docker-locked').count(), 0, 'a stopped node can be edited');

    // Not a number: refused by its field, nothing saved.
    await panel.getByTestId('docker-adapters').fill('two');
    await page.getByTestId('node-save').click();
    await panel.getByTestId('error-adapters').waitFor();
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${made.node_id}`)).body.properties.adapters, 1);

    await panel.getByTestId('docker-adapters').fill('2');
    // The custom adapters table follows: a row per adapter.
    await until(async () => (await panel.getByTestId('docker-adapter').count()) === 2, WAIT, 'two adapter rows');
    await page.getByTestId('node-save').click();
    const saved = await until(async () => {
      const n = (await rest('GET', `/projects/${pid}/nodes/${made.node_id}`)).body;
      return n.properties.adapters === 2 ? n : null;
    }, WAIT, 'adapters 2 saved');
    assert.deepEqual(saved.ports.map((p) => p.name), ['eth0', 'eth1']);
    assert.equal(saved.properties.image, IMAGE, 'only the adapters changed');
    assert.equal(saved.properties.environment, 'GREETING=hi\nLAB=e2e');
    await until(async () => (await page.getByTestId('node-save').isDisabled()), WAIT, 'the panel saved');
    await screenshot(page, 'docker-panel.png');
  });

  test('its aux console has a tab of its own, waiting for the node, with the telnet command; an http console opens in a browser', async () => {
    const n = (await rest('GET', `/projects/${pid}/nodes`)).body.find((x) => x.node_type === 'docker');
    assert.ok(Number.isInteger(n.properties.aux), `the node has an aux console port: ${JSON.stringify(n.properties)}`);
    const panel = page.getByTestId('node-panel');
    await panel.getByTestId('node-aux').click();
    const aux = page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"][data-kind="aux"]`);
    await aux.waitFor();
    assert.match(await aux.textContent(), /Aux/);
    await page.locator(terminal(n.node_id, 'aux')).waitFor();
    assert.equal(await page.getByTestId('aux-command').textContent(), `telnet 127.0.0.1 ${n.properties.aux}`);
    // Stopped: the tab waits, and says when it connects.
    assert.equal(await aux.getAttribute('data-state'), 'waiting');
    assert.match(await page.getByTestId('console-banner').textContent(), /is stopped\. Its aux console, a shell in its container, connects when it starts/);
    // The main console's tab is another tab of the same node.
    await panel.getByTestId('node-console').click();
    await page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"][data-kind="telnet"]`).waitFor();
    assert.equal(await page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"]`).count(), 2);
    await screenshot(page, 'docker-aux.png');
    await aux.getByTestId('console-tab-close').click();
    await aux.waitFor({ state: 'detached' });
    await page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"] [data-testid="console-tab-close"]`).click();

    // An http console: its web port and path in the panel, and the link GNS3 would open.
    await panel.getByTestId('field-console_type').selectOption('http');
    await panel.getByTestId('docker-console_http_path').fill('/status');
    await page.getByTestId('node-save').click();
    const web = panel.getByTestId('node-web');
    await web.waitFor();
    const saved = (await rest('GET', `/projects/${pid}/nodes/${n.node_id}`)).body;
    assert.equal(saved.console_type, 'http');
    assert.equal(saved.properties.console_http_path, '/status');
    assert.equal(await web.getAttribute('href'), `http://127.0.0.1:${saved.console}/status`);
    assert.equal(await web.getAttribute('aria-disabled'), 'true', 'stopped: nothing answers yet');
    await panel.getByTestId('field-console_type').selectOption('telnet');
    await page.getByTestId('node-save').click();
    await web.waitFor({ state: 'detached' });
  });

  test('started, its console tab is the shell the image runs: its environment is the template\'s', async () => {
    const n = (await rest('GET', `/projects/${pid}/nodes`)).body.find((x) => x.node_type === 'docker');
    const panel = page.getByTestId('node-panel');
    await panel.getByTestId('node-start').click();
    await until(async () => (await node(n.name).getAttribute('data-status')) === 'started', BOOT, `${n.name} started`);
    await panel.getByTestId('docker-locked').waitFor(); // a running container keeps what it was made with
    assert.equal(await panel.getByTestId('docker-adapters').isDisabled(), true);
    await panel.getByTestId('node-console').click();
    const tab = page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"][data-kind="telnet"]`);
    await until(async () => (await tab.getAttribute('data-state')) === 'connected', BOOT, 'the console tab connected');
    await page.locator(`${terminal(n.node_id)} .xterm`).click();
    await until(async () => {
      if (/^hi-e2e\s*$/m.test(await screen(n.node_id))) return true;
      await page.keyboard.type('echo $GREETING-$LAB');
      await page.keyboard.press('Enter');
      return false;
    }, BOOT, 'hi-e2e in the console');
    // Its aux tab is a terminal on a shell in the running container.
    await panel.getByTestId('node-aux').click();
    const aux = page.locator(`[data-testid="console-tab"][data-node="${n.node_id}"][data-kind="aux"]`);
    await until(async () => (await aux.getAttribute('data-state')) === 'connected', BOOT, 'the aux tab connected');
    assert.equal(await aux.getByTestId('console-tab-state').textContent(), 'connected');
    assert.equal(await page.getByTestId('aux-command').textContent(), `telnet 127.0.0.1 ${n.properties.aux}`, 'the telnet command stays beside it');
    await page.locator(`${terminal(n.node_id, 'aux')} .xterm`).click();
    await until(async () => {
      if (/^aux-42\s*$/m.test(await screen(n.node_id, 'aux'))) return true;
      await page.keyboard.type('echo aux-$((6*7))');
      await page.keyboard.press('Enter');
      return false;
    }, BOOT, 'aux-42 in the aux console');
    assert.doesNotMatch(await screen(n.node_id), /aux-42/, "the aux shell's output is not in the console tab");
    // Ctrl+Z typed in the aux terminal is the shell's, not the canvas's undo.
    const undo = page.getByTestId('undo');
    assert.equal(await undo.isDisabled(), false, 'there is an edit Ctrl+Z could undo');
    const label = await undo.getAttribute('aria-label');
    await page.keyboard.press('Control+z');
    await until(async () => {
      if (/^still-42\s*$/m.test(await screen(n.node_id, 'aux'))) return true;
      await page.keyboard.type('echo still-$((40+2))');
      await page.keyboard.press('Enter');
      return false;
    }, BOOT, 'the aux shell answering after Ctrl+Z');
    assert.equal(await undo.getAttribute('aria-label'), label, 'nothing was undone');
    assert.equal((await rest('GET', `/projects/${pid}/nodes/${n.node_id}`)).body.console_type, 'telnet');
    await screenshot(page, 'docker-console.png');
    await panel.getByTestId('node-stop').click();
    await until(async () => (await tab.getAttribute('data-state')) === 'waiting', BOOT, 'the console tab waiting after the stop');
    await until(async () => (await aux.getAttribute('data-state')) === 'waiting', BOOT, 'the aux tab waiting after the stop');
  });

  test("an http console's Open in browser shows the page the container serves", async () => {
    const tpl = (await rest('GET', '/templates')).body.find((x) => x.name === 'nodedesk-test-busybox');
    const n = (await rest('POST', `/projects/${pid}/templates/${tpl.template_id}`, { x: 200, y: 350 })).body;
    const web = (await rest('PUT', `/projects/${pid}/nodes/${n.node_id}`, {
      console_type: 'http',
      properties: { start_command: 'sh -c "mkdir -p /www && echo hello from $HOSTNAME > /www/index.html && exec httpd -f -p 8080 -h /www"', console_http_port: 8080, console_http_path: '/index.html' },
    })).body;
    assert.equal(web.console_type, 'http', JSON.stringify(web));
    await clickNode(page, web.name);
    const panel = page.getByTestId('node-panel');
    const link = panel.getByTestId('node-web');
    await link.waitFor();
    assert.equal(await panel.getByTestId('docker-console_http_port').inputValue(), '8080');
    await panel.getByTestId('node-start').click();
    await until(async () => (await link.getAttribute('aria-disabled')) === 'false', BOOT, 'the link enabled once started');
    assert.equal(await link.getAttribute('href'), `http://127.0.0.1:${web.console}/index.html`);
    // Once the container's server answers, the link opens its page in a new tab.
    const href = await link.getAttribute('href');
    await until(async () => /hello from/.test(await fetch(href).then((r) => r.text(), () => '')), BOOT, "the container's web server answering");
    const [tab] = await Promise.all([browser.context.waitForEvent('page'), link.click()]);
    await tab.waitForLoadState('domcontentloaded');
    assert.equal(tab.url(), href);
    assert.match(await tab.textContent('body'), /hello from/);
    await tab.close();
    await panel.getByTestId('node-stop').click();
    await until(async () => (await node(web.name).getAttribute('data-status')) === 'stopped', BOOT, `${web.name} stopped`);
  });

  test('no page errors', () => {
    assert.deepEqual(pageErrors.map((e) => e.message), []);
  });
});

describe('Docker in the UI without a Docker Engine', { timeout: 60_000 }, () => {
  let server;
  let browser;
  let page;
  let rest;

  before(async () => {
    // An engine that is not there: nothing listens on this socket.
    server = await startServer({ env: { DOCKER_HOST: 'unix:///nonexistent/nodedesk-e2e/docker.sock' } });
    rest = restClient(server.url);
    const pid = (await rest('POST', '/projects', { name: 'no docker' })).body.project_id;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    page.setDefaultTimeout(WAIT);
    await page.goto(`${server.url}/#/projects/${pid}`, { waitUntil: 'domcontentloaded' });
    await page.getByTestId('canvas-empty').waitFor();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test("the dialog says why Docker's images cannot be listed, and a typed image still makes a template", async () => {
    const listed = await rest('GET', '/computes/local/docker/images');
    assert.equal(listed.status, 409, `no engine: 409, ${JSON.stringify(listed.body)}`);
    await page.getByTestId('new-docker-template').click();
    const dialog = page.getByTestId('docker-template-dialog');
    await dialog.waitFor();
    const why = page.getByTestId('dt-image-unavailable');
    await why.waitFor();
    assert.ok((await why.textContent()).includes(listed.body.message), `the server's sentence is shown: ${await why.textContent()}`);
    assert.match(await why.textContent(), /You can still type the name of an image/);
    await screenshot(page, 'docker-template-no-engine.png');
    await page.getByTestId('dt-image-input').fill('alpine:3.20');
    assert.equal(await page.getByTestId('dt-name').inputValue(), 'alpine');
    await page.getByTestId('dt-category').selectOption('router');
    await page.getByTestId('dt-submit').click();
    await dialog.waitFor({ state: 'detached' });
    await page.locator('[data-testid="palette-group-router"] [data-name="alpine"]').waitFor();
    const tpl = (await rest('GET', '/templates')).body.find((x) => x.name === 'alpine');
    assert.equal({ ...tpl, ...(tpl.properties ?? {}) }.image, 'alpine:3.20');
  });
});
