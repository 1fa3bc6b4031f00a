// What this nodedesk's Docker Engine has: its images (the template
// dialog's and the node panel's choices), or why they cannot be listed
// (Docker not installed, not running, no permission on its socket: the
// server's sentence, which says what to do).

import { writable } from 'svelte/store';
import * as api from '../api';
import type { DockerImage } from '../../nodekinds/docker/model';

export const dockerImages = writable<DockerImage[]>([]);
/** Whether the images are known: loading, loaded, or why not. */
export const dockerImagesState = writable<'idle' | 'loading' | 'ready' | { error: string }>('idle');

let asking = 0;

/** loadDockerImages asks the engine for its images again; only the
 * latest answer counts. */
export async function loadDockerImages(): Promise<void> {
  const mine = ++asking;
  dockerImagesState.set('loading');
  try {
    const list = await api.listDockerImages();
    if (mine !== asking) return;
    dockerImages.set(list);
    dockerImagesState.set('ready');
  } catch (err) {
    if (mine !== asking) return;
    dockerImages.set([]);
    dockerImagesState.set({ error: api.toAppError(err).message });
  }
}

/** openWebConsole opens a node's web console in the user's browser when
 * the page is the window's (true); in a browser it says false, and the
 * console's link opens it. */
export const openWebConsole = (url: string): boolean => api.openExternal(url);
