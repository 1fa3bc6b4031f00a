// Starts a real nodedesk (NODEDESK_BIN, headless, on a free port and a
// fresh store) and Debian's chromium through playwright-core.

import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_BIN ?? '/usr/bin/chromium';

/** startServer runs nodedesk and resolves with its URL once it serves:
 * on a free port and a fresh store, or on listen and the store in dir (a
 * restart of one stopped with keepStore), with more flags in args and more
 * variables in env (DOCKER_HOST). */
export async function startServer({ timeoutMs = 15_000, args = [], listen = '127.0.0.1:0', dir = mkdtempSync(path.join(tmpdir(), 'nodedesk-e2e-')), env: extraEnv = {} } = {}) {
  const bin = process.env.NODEDESK_BIN;
  if (!bin) throw new Error('Set NODEDESK_BIN to a built nodedesk binary: run `make server` at the top of the repository, then NODEDESK_BIN=$PWD/../build/bin/nodedesk-server npm run e2e (or npm run perf) here');
  const env = { ...process.env, ...extraEnv };
  delete env.DISPLAY;
  const proc = spawn(path.resolve(bin), ['--headless', '--listen', listen, '--db', path.join(dir, 'e2e.db'), ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`nodedesk did not print its URL within ${timeoutMs} ms:\n${log}`)), timeoutMs);
    const onData = (chunk) => {
      log += chunk;
      const m = /msg="nodedesk is serving" url=(http:\/\/127\.0\.0\.1:\d+)/.exec(log);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    proc.stderr.on('data', onData);
    proc.stdout.on('data', onData);
    proc.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`nodedesk exited with ${code} before serving:\n${log}`));
    });
  });
  const stop = async ({ keepStore = false } = {}) => {
    let killed = false;
    if (proc.exitCode === null) {
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      // nodedesk stops every node before it exits; a loaded machine may
      // need a while for many.
      const t = setTimeout(() => { killed = true; proc.kill('SIGKILL'); }, 20_000);
      await exited;
      clearTimeout(t);
    }
    if (!keepStore) {
      endLeftovers(dir, killed);
      rmSync(dir, { recursive: true, force: true });
    }
  };
  return { url, dir, stop, log: () => log, pid: proc.pid };
}

/** endLeftovers ends the processes still working in dir (an emulator a
 * nodedesk left, which its next start would end by its records): no
 * process a test started outlives it. Each is named on stderr: after a
 * SIGTERM nodedesk should have stopped it itself. */
export function endLeftovers(dir, killed) {
  let pids = [];
  try {
    pids = readdirSync('/proc').filter((p) => /^\d+$/.test(p));
  } catch {
    return; // no /proc: not Linux
  }
  for (const pid of pids) {
    let cwd;
    try {
      cwd = readlinkSync(`/proc/${pid}/cwd`);
    } catch {
      continue;
    }
    if (cwd !== dir && !cwd.startsWith(dir + '/')) continue;
    let cmd = '';
    try {
      cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {}
    console.error(`# harness: nodedesk ${killed ? 'was killed after 20 s and' : 'exited but'} left pid ${pid} (${cmd}) in ${cwd}; ending it`);
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {}
  }
}

const DOCKERD_SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'test-dockerd.sh');

/** startDockerEngine starts a private Docker Engine with its socket and
 * data under dir (scripts/test-dockerd.sh, which also imports the offline
 * test image nodedesk-test/busybox:latest) and resolves with its
 * DOCKER_HOST and the function that stops it — only when this call
 * started it. Without dockerd it fails, saying how to get it. */
export async function startDockerEngine(dir = process.env.NODEDESK_DOCKERD_DIR ?? path.join(tmpdir(), 'nodedesk-e2e-dockerd')) {
  const has = spawnSync('sh', ['-c', 'command -v dockerd'], { encoding: 'utf8' });
  if (has.status !== 0) {
    throw new Error("dockerd is missing, and the Docker tests need a Docker Engine: run `make test` at the top of the repository (it installs Debian's docker.io), or `apt-get install docker.io busybox-static`");
  }
  const pidFile = path.join(dir, 'dockerd.pid');
  const alive = () => {
    try {
      process.kill(Number(readFileSync(pidFile, 'utf8').trim()), 0);
      return true;
    } catch {
      return false;
    }
  };
  const ours = !alive();
  const r = spawnSync(DOCKERD_SCRIPT, ['start', dir], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0) throw new Error(`${DOCKERD_SCRIPT} start ${dir} failed (${r.status ?? r.signal}):\n${r.stderr}${r.stdout}`);
  const host = r.stdout.trim().split('\n').pop();
  const stop = async () => {
    if (!ours) return; // someone else's engine: theirs to stop
    const s = spawnSync(DOCKERD_SCRIPT, ['stop', dir], { encoding: 'utf8', timeout: 60_000 });
    if (s.status !== 0) throw new Error(`${DOCKERD_SCRIPT} stop ${dir} failed: ${s.stderr}`);
  };
  return { host, dir, stop };
}

/** launchBrowser starts headless chromium with a fresh profile. */
export async function launchBrowser() {
  const profile = mkdtempSync(path.join(tmpdir(), 'nodedesk-chromium-'));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic',
    ],
  });
  const close = async () => {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  };
  return { context: browser, close };
}

/** rest calls the nodedesk API from the test process. */
export function restClient(base) {
  return async function rest(method, p, body) {
    const res = await fetch(base + '/v2' + p, {
      method,
      headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
}

/** until polls fn until it returns a truthy value, for at most ms, and
 * returns that value; past ms it throws, naming what it waited for. */
export async function until(fn, ms, what = 'condition') {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** canvasNode is the node called name on the page's canvas. */
export const canvasNode = (page, name) => page.locator(`[data-testid="canvas-node"][data-name="${name}"]`);

/** clickNode clicks (or double-clicks) a node on the canvas, which must be
 * wholly in view. Playwright reaches a node cut off by the canvas's edge by
 * scrolling the canvas; Svelte Flow scrolls it straight back, and on a busy
 * machine that lands between the press and the release, so the click misses
 * the node now and then. A test that clicks a node out of view fails here
 * instead, every time, saying so. */
export async function clickNode(page, name, { double = false } = {}) {
  const node = canvasNode(page, name);
  await node.waitFor();
  let box, view;
  const inside = async () => {
    [box, view] = [await node.boundingBox(), await page.locator('.svelte-flow').boundingBox()];
    return box && view && box.x >= view.x && box.y >= view.y && box.x + box.width <= view.x + view.width && box.y + box.height <= view.y + view.height;
  };
  // A moment for a view just fitted or a panel just closed to settle.
  await until(inside, 2_000, `${name} wholly in view on the canvas`).catch(() => {
    throw new Error(`${name} is not wholly in view on the canvas (node ${JSON.stringify(box)}, canvas ${JSON.stringify(view)}): place it in view, or fit the view first`);
  });
  await (double ? node.dblclick() : node.click());
}

/** ARTIFACTS is where the tests leave pictures for a person reading a failure. */
export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'artifacts');

/** screenshot saves the page as ARTIFACTS/name, when there is a page; it
 * never fails (it runs in teardowns, after a failure too). */
export async function screenshot(page, name) {
  if (!page) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: path.join(ARTIFACTS, name) }).catch(() => {});
}
