// What this nodedesk has for Dynamips: its router platforms (what fits
// each slot, asked once) and the IOS images of its images folders (the
// template dialog's and the router panel's choices), with uploads; and a
// router's idle-PC search and startup config.

import { writable } from 'svelte/store';
import * as api from '../api';
import type { DynamipsPlatformInfo, Image } from '../types';

/** The platforms by name; empty until loaded. */
export const platforms = writable<Map<string, DynamipsPlatformInfo>>(new Map());
let asked = false;

/** loadPlatforms asks once for the platform catalogue. */
export function loadPlatforms(): void {
  if (asked) return;
  asked = true;
  api.dynamipsPlatforms().then(
    (list) => platforms.set(new Map(list.map((p) => [p.platform, p]))),
    () => {
      asked = false; // asked again the next time a panel wants it
    },
  );
}

export const iosImages = writable<Image[]>([]);
/** Whether the IOS images are known: loading, loaded, or why not. */
export const iosImagesState = writable<'idle' | 'loading' | 'ready' | { error: string }>('idle');

/** loadIOSImages asks for the IOS images again. */
export async function loadIOSImages(): Promise<void> {
  iosImagesState.set('loading');
  try {
    iosImages.set(await api.listIOSImages());
    iosImagesState.set('ready');
  } catch (err) {
    iosImagesState.set({ error: api.toAppError(err).message });
  }
}

/** uploadIOSImage uploads a file to the IOS images folder, telling
 * progress as a fraction (0–1), then reloads the list. */
export function uploadIOSImage(file: File, progress: (fraction: number) => void): api.Upload {
  const u = api.uploadImage(file, file.name, (sent, total) => progress(total > 0 ? Math.min(1, sent / total) : 0), 'dynamips');
  return { abort: u.abort, done: u.done.then(() => loadIOSImages()) };
}

/** findIdlePC finds an idle-PC value for a running router; the server
 * keeps it as the router's idlepc (the node's update follows). */
export const findIdlePC = (pid: string, nid: string): Promise<{ idlepc: string }> => api.autoIdlePC(pid, nid);

/** readStartupConfig reads a router's startup config (at path, its
 * startupConfigPath): until its first start, the one it will start with. */
export const readStartupConfig = (pid: string, nid: string, path: string): Promise<string> => api.readNodeFile(pid, nid, path);

/** saveStartupConfig writes a router's startup config as typed. */
export const saveStartupConfig = (pid: string, nid: string, path: string, text: string): Promise<void> =>
  api.writeNodeFile(pid, nid, path, text);
