// Opening project files — the file picker or a drop in a browser, the
// native Open dialog or a drop in the window — and exporting projects,
// each with a notice saying how it went. An opened file becomes a project
// that is opened and shown at once.

import { get, writable } from 'svelte/store';
import * as api from '../api';
import { baseName, exportFileName, firstProjectFile, notAProject, projectNameOf, type ExportOptions } from '../projectfile';
import type { Project } from '../types';
import { failed, notify } from './notices';
import { openProject, projects } from './projects';

/** The file being opened, while it is. */
export const opening = writable<string | null>(null);

/** The page's file picker (an <input type="file">), clicked for Open in a
 * browser. */
let picker: HTMLInputElement | null = null;

/** usePicker registers the page's file picker; returns the function that
 * forgets it. */
export function usePicker(el: HTMLInputElement): () => void {
  picker = el;
  return () => {
    if (picker === el) picker = null;
  };
}

/** pickProjectFile asks for a project file: the window's native Open
 * dialog, or the page's file picker (whose choice comes to openFiles). */
export function pickProjectFile(): void {
  if (api.transport() === 'window') void bringIn(null, api.openProjectFile);
  else picker?.click();
}

/** openFiles opens the project file among files picked or dropped in a
 * browser: uploaded as GNS3's import does it. */
export async function openFiles(files: readonly File[]): Promise<void> {
  const file = choose(files);
  if (file) await bringIn(file.name, async () => (await api.importProject(file, projectNameOf(file.name))).project_id);
}

/** openPaths opens the project file among files dropped on the window,
 * by their paths. */
export async function openPaths(paths: readonly string[]): Promise<void> {
  const file = choose(paths.map((path) => ({ name: path })));
  if (file) await bringIn(baseName(file.name), () => api.importProjectPath(file.name));
}

/** followDroppedPaths opens what is dropped on the window (which hands
 * over the files' paths); answers the function that stops. */
export const followDroppedPaths = (): (() => void) => api.droppedPaths((paths) => void openPaths(paths));

/** choose picks the project file among files, saying when there is none
 * or when others are left. */
function choose<T extends { name: string }>(files: readonly T[]): T | null {
  const { file, others } = firstProjectFile(files);
  if (!file) {
    if (files.length > 0) notify('error', notAProject(baseName(files[0].name)));
    return null;
  }
  if (others > 0) notify('info', `Opening ${baseName(file.name)} only: open one project at a time`);
  return file;
}

/** bringIn runs one import (null: the user cancelled) and shows the
 * project; what names the file while it is opened (null: none shown, as
 * while a native dialog is up). */
async function bringIn(what: string | null, load: () => Promise<string | null>): Promise<void> {
  opening.set(what);
  try {
    const id = await load();
    if (!id) return;
    await openProject(id);
    const name = get(projects).find((p) => p.project_id === id)?.name;
    notify('success', name ? `Opened ${name}` : 'Opened the project');
  } catch (err) {
    failed(what ? `Could not open ${what}` : 'Could not open the project', err);
  } finally {
    opening.set(null);
  }
}

/** exportProject exports a project with GNS3's options: a download of
 * "<name>.gns3project" in a browser, the file picked in the native Save
 * dialog in the window. It answers false when the user cancelled; a
 * refusal (a running project) is thrown for the dialog to show. */
export async function exportProject(p: Project, o: ExportOptions): Promise<boolean> {
  const r = await api.exportProject(p.project_id, o);
  switch (r.kind) {
    case 'download': {
      const name = exportFileName(p.name);
      download(r.archive, name);
      notify('success', `Exported ${p.name} as ${name}`);
      return true;
    }
    case 'saved':
      notify('success', `Exported ${p.name} to ${r.path}`);
      return true;
    case 'cancelled':
      return false;
  }
}

/** download hands a file to the browser's downloads. */
function download(data: Blob, name: string): void {
  const url = URL.createObjectURL(data);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.hidden = true;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** stopAllNodes stops every node of a project, as the toolbar's Stop all
 * does (for "Stop all and export": the server exports no running node). */
export const stopAllNodes = (pid: string): Promise<void> => api.projectAction(pid, 'stop').then(() => undefined);
