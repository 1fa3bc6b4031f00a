// "Check my lab" for the project shown (decision 0070): its checks file,
// its newest run (from GET …/checks/run on opening, then from
// check.run.updated events), its lint findings (read on opening and again
// shortly after each change) and, while asked for, its wire map (read
// every few seconds). The Checks panel and the canvas's badges read these.

import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import { lintBadges, wireLabels, withCheck, withoutCheck } from '../checks';
import type { Check, CheckFile, CheckRun, LintReport, WireMap } from '../types';
import { nodes } from './nodes';

/** The project's checks file; null until read. */
export const checkFile = writable<CheckFile | null>(null);
/** Why the checks file could not be read; null when it was. */
export const checkFileError = writable<string | null>(null);
/** The project's newest run of its checks; null: none since nodedesk started. */
export const checkRun = writable<CheckRun | null>(null);
/** What lint found in the project; null until read. */
export const lintReport = writable<LintReport | null>(null);
/** The badges lint puts on nodes and links. */
export const badges = derived(lintReport, lintBadges);
/** Whether the canvas shows the wire map on its links. */
export const wireMapShown = writable(false);
/** The wire map, while shown. */
export const wireMap = writable<WireMap | null>(null);
/** What the wire map puts on each link, while shown. */
export const wireMapLabels = derived([wireMap, wireMapShown, nodes], ([m, on, ns]) => wireLabels(on ? m : null, ns));

/** How long after the last change lint is read again, in ms. */
export const LINT_DELAY = 700;
/** How often the wire map is read while shown, in ms. */
export const WIRE_MAP_EVERY = 3000;
/** How often a running run is read again, in case an event was missed, in ms. */
const RUN_POLL = 2000;

let shown: string | null = null;
let lintTimer: ReturnType<typeof setTimeout> | null = null;
let wireTimer: ReturnType<typeof setInterval> | null = null;
let runTimer: ReturnType<typeof setTimeout> | null = null;

/** followChecks switches to project pid's checks (null: none) and reads them. */
export function followChecks(pid: string | null): void {
  shown = pid;
  checkFile.set(null);
  checkFileError.set(null);
  checkRun.set(null);
  lintReport.set(null);
  wireMap.set(null);
  if (lintTimer) clearTimeout(lintTimer);
  lintTimer = null;
  if (runTimer) clearTimeout(runTimer);
  runTimer = null;
  restartWireMap();
  if (pid === null) return;
  void reloadChecks(pid);
  void reloadRun(pid);
  void reloadLint(pid);
}

/** reloadChecks reads the checks file again. */
export async function reloadChecks(pid: string): Promise<void> {
  try {
    const f = await api.checks(pid);
    if (shown !== pid) return;
    checkFile.set(f);
    checkFileError.set(null);
  } catch (err) {
    if (shown === pid) checkFileError.set(api.toAppError(err).message);
  }
}

/** reloadRun reads the newest run again (none ran: null). */
export async function reloadRun(pid: string): Promise<void> {
  try {
    const r = await api.lastCheckRun(pid);
    if (shown === pid) setRun(r);
  } catch {
    // 404: no run since nodedesk started; anything else: the next event tells.
  }
}

/** reloadLint reads lint again; a failure keeps the badges it had. */
export async function reloadLint(pid: string): Promise<void> {
  try {
    const r = await api.lint(pid);
    if (shown === pid) lintReport.set(r);
  } catch {
    // The badges stay as they were; the next change reads again.
  }
}

/** lintSoon reads lint again once changes pause (a drag, a burst of events). */
export function lintSoon(): void {
  if (shown === null) return;
  if (lintTimer) clearTimeout(lintTimer);
  const pid = shown;
  lintTimer = setTimeout(() => {
    lintTimer = null;
    void reloadLint(pid);
  }, LINT_DELAY);
}

function setRun(r: CheckRun): void {
  const cur = get(checkRun);
  // An older run's late event never hides the newer run shown.
  if (cur && cur.run_id !== r.run_id && Date.parse(cur.started_at) > Date.parse(r.started_at)) return;
  checkRun.set(r);
  if (runTimer) clearTimeout(runTimer);
  runTimer = null;
  if (r.status === 'running' && shown === r.project_id) {
    const pid = shown;
    runTimer = setTimeout(() => {
      runTimer = null;
      void reloadRun(pid);
    }, RUN_POLL);
  }
}

/** applyCheckRunEvent folds a check.run.updated event in. */
export function applyCheckRunEvent(r: CheckRun): void {
  if (r.project_id === shown) setRun(r);
}

/** saveChecks writes the file and keeps the server's answer; a refusal
 * (a 400 naming the check and field) is thrown for the form to show. */
async function saveChecks(pid: string, f: CheckFile): Promise<CheckFile> {
  const saved = await api.putChecks(pid, f);
  if (shown === pid) checkFile.set(saved);
  return saved;
}

const current = (): CheckFile => get(checkFile) ?? { version: 1, checks: [] };

/** putCheck adds check to the file, or puts it in place of the check called replacing. */
export const putCheck = (pid: string, check: Check, replacing: string | null): Promise<CheckFile> =>
  saveChecks(pid, withCheck(current(), check, replacing));

/** deleteCheck removes the check called id from the file. */
export const deleteCheck = (pid: string, id: string): Promise<CheckFile> => saveChecks(pid, withoutCheck(current(), id));

/** runChecks starts a run of the checks called ids (none: all); a
 * refusal (a run under way, a closed project) is thrown. */
export async function runChecks(pid: string, ids: string[] = []): Promise<CheckRun> {
  const r = await api.runChecks(pid, ids.length > 0 ? { checks: ids } : {});
  if (shown === pid) setRun(r);
  return r;
}

/** checkConnectivity pings every learned host from every other, with no checks file needed. */
export async function checkConnectivity(pid: string): Promise<CheckRun> {
  const r = await api.runChecks(pid, { connectivity: true });
  if (shown === pid) setRun(r);
  return r;
}

async function readWireMap(pid: string): Promise<void> {
  try {
    const m = await api.wireMap(pid);
    if (shown === pid && get(wireMapShown)) wireMap.set(m);
  } catch {
    // Kept as it was; the next read may answer.
  }
}

function restartWireMap(): void {
  if (wireTimer) clearInterval(wireTimer);
  wireTimer = null;
  if (!get(wireMapShown) || shown === null) return;
  const pid = shown;
  void readWireMap(pid);
  wireTimer = setInterval(() => void readWireMap(pid), WIRE_MAP_EVERY);
}

/** showWireMap shows or hides the wire map on the canvas's links; while
 * shown it is read every few seconds. */
export function showWireMap(on: boolean): void {
  wireMapShown.set(on);
  if (!on) wireMap.set(null);
  restartWireMap();
}

/** captureFileUrl is where a browser reads a run's capture slice (a
 * project file); null in the window, which shows its path instead. */
export const captureFileUrl = (pid: string, path: string): string | null => api.projectFileUrl(pid, path);
