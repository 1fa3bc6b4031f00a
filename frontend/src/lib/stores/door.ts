// Which door this page reaches nodedesk through: the Wails window's
// bindings, or the REST API in a browser. The few views that differ
// between the two (saving a file, opening a capture, a dropped file) ask
// here.

import * as api from '../api';

/** inWindow tells whether the page runs in nodedesk's own window. */
export const inWindow = (): boolean => api.transport() === 'window';

/** announceReady tells the window the page is up (nothing in a browser;
 * a window that cannot be told is left alone). */
export function announceReady(): void {
  void api.ready().catch(() => {});
}
