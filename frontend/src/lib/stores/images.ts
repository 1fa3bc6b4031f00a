// The images of one emulator's images folders on this nodedesk: the
// list (a template dialog's and a node panel's choices), asked again on
// demand, and uploads that read it again once done. A node type's entry
// makes the source of its emulator.

import { writable, type Readable } from 'svelte/store';
import * as api from '../api';
import type { Image } from '../types';

/** Whether a list is known: loading, loaded, or why not. */
export type LoadState = 'idle' | 'loading' | 'ready' | { error: string };

/** One emulator's images, as the image picker shows them. */
export interface ImageSource {
  images: Readable<Image[]>;
  state: Readable<LoadState>;
  /** load asks for the images again. */
  load(): Promise<void>;
  /** upload uploads a file, telling progress as a fraction (0–1), then
   * reads the list again. Returns the upload, to cancel. */
  upload(file: File, progress: (fraction: number) => void): api.Upload;
}

/** imageSource is the images of emulator (its name in the API's paths). */
export function imageSource(emulator: api.Emulator): ImageSource {
  const images = writable<Image[]>([]);
  const state = writable<LoadState>('idle');
  async function load(): Promise<void> {
    state.set('loading');
    try {
      images.set(await api.listImages(emulator));
      state.set('ready');
    } catch (err) {
      state.set({ error: api.toAppError(err).message });
    }
  }
  function upload(file: File, progress: (fraction: number) => void): api.Upload {
    const u = api.uploadImage(emulator, file, file.name, (sent, total) => progress(total > 0 ? Math.min(1, sent / total) : 0));
    return { abort: u.abort, done: u.done.then(() => load()) };
  }
  return { images, state, load, upload };
}

/** One image of a container engine: its name. */
export interface EngineImage {
  image: string;
}

/** The images of a container engine (names a user may also type), or why
 * they cannot be listed (the engine not installed, not running, no
 * permission on its socket: the server's sentence, which says what to
 * do), with the words the picker says about the engine. */
export interface EngineImages {
  images: Readable<EngineImage[]>;
  state: Readable<LoadState>;
  /** load asks the engine for its images again; only the latest answer counts. */
  load(): Promise<void>;
  /** The engine's name, and the commands that give it an image. */
  engine: string;
  pull: string;
  import: string;
}

/** engineImages is the images list answers. */
export function engineImages(list: () => Promise<EngineImage[]>, words: Pick<EngineImages, 'engine' | 'pull' | 'import'>): EngineImages {
  const images = writable<EngineImage[]>([]);
  const state = writable<LoadState>('idle');
  let asking = 0;
  async function load(): Promise<void> {
    const mine = ++asking;
    state.set('loading');
    try {
      const got = await list();
      if (mine !== asking) return;
      images.set(got);
      state.set('ready');
    } catch (err) {
      if (mine !== asking) return;
      images.set([]);
      state.set({ error: api.toAppError(err).message });
    }
  }
  return { images, state, load, ...words };
}
