// What this nodedesk has for QEMU: the images of its images folder (the
// template dialog's and the node panel's choices), an upload's progress,
// and how it runs guests (KVM, or TCG and a note saying it is slower),
// asked once.

import { writable } from 'svelte/store';
import * as api from '../api';
import type { QemuCapabilities, QemuImage } from '../../nodekinds/qemu/model';

export const images = writable<QemuImage[]>([]);
/** Whether the images are known: loading, loaded, or why not. */
export const imagesState = writable<'idle' | 'loading' | 'ready' | { error: string }>('idle');

/** loadImages asks for the images again. */
export async function loadImages(): Promise<void> {
  imagesState.set('loading');
  try {
    images.set(await api.listImages());
    imagesState.set('ready');
  } catch (err) {
    imagesState.set({ error: api.toAppError(err).message });
  }
}

/** How this nodedesk runs QEMU guests; null until known, or when it does
 * not say (an older nodedesk answers 404). */
export const capabilities = writable<QemuCapabilities | null>(null);
let asked = false;

/** loadCapabilities asks once how guests run. */
export function loadCapabilities(): void {
  if (asked) return;
  asked = true;
  api.qemuCapabilities().then(
    (c) => capabilities.set(c && typeof c === 'object' ? c : null),
    () => {
      asked = false; // asked again the next time a panel wants it
    },
  );
}

/** uploadImage uploads a file to the images folder, telling progress as
 * a fraction (0–1), then reloads the list. Returns the upload, to cancel. */
export function uploadImage(file: File, progress: (fraction: number) => void): api.Upload {
  const u = api.uploadImage(file, file.name, (sent, total) => progress(total > 0 ? Math.min(1, sent / total) : 0));
  return { abort: u.abort, done: u.done.then(() => loadImages()) };
}
