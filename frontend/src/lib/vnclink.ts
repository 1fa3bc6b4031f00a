// The page's view of a node's VNC console (a QEMU guest's screen): noVNC's
// RFB client drawing into an element of the page, over the API's VNC
// websocket (…/nodes/{id}/console/vnc), which carries the raw RFB bytes to
// the node's VNC server. The screen is scaled to fit its element. The
// window's page cannot open that websocket (its requests never go over
// HTTP): it is told so, and the node's VNC address is what it can use.

import { AppError, toAppError } from './errors';
import type { Connection } from './transport';

/** What a VNC link tells its tab. */
export interface VncHandlers {
  /** The link ended without being closed by the page (node stopped, the
   * VNC server closed, the server gone). */
  onClose(reason: string): void;
}

/** An open VNC link. */
export interface VncLink {
  /** focus gives the guest the keyboard. */
  focus(): void;
  /** close ends the link; onClose is not called. */
  close(): void;
}

/** The part of noVNC's RFB the page uses. */
export interface RFBLike extends EventTarget {
  scaleViewport: boolean;
  resizeSession: boolean;
  background: string;
  focus(): void;
  disconnect(): void;
}

/** noVNC's RFB: new RFB(target, url, options). */
export type RFBConstructor = new (target: HTMLElement, url: string, options?: { shared?: boolean; wsProtocols?: string[] }) => RFBLike;

/** loadRFB loads noVNC when the first VNC tab opens, so that it does not
 * slow the opening of the page. */
export const loadRFB = async (): Promise<RFBConstructor> => (await import('@novnc/novnc')).default;

/** vncUrl is the VNC websocket of a node, on the page's own server. */
export function vncUrl(c: Connection, pid: string, nid: string): string {
  const loc = c.env.location ?? { protocol: 'http:', host: '127.0.0.1:3080' };
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/v2/projects/${encodeURIComponent(pid)}/nodes/${encodeURIComponent(nid)}/console/vnc`;
}

/** WINDOW_NO_VNC is why the window shows no VNC tab. */
export const WINDOW_NO_VNC = 'the window shows VNC screens only in a browser tab; use Terminal for its VNC address';

/** openVncLink connects target to node nid's VNC console; it resolves once
 * the guest's screen is shown, and rejects with an AppError when it cannot
 * be reached (not started, not a VNC console, gone: the browser hides the
 * server's refusal, the node's status tells the rest). */
export async function openVncLink(
  c: Connection, pid: string, nid: string, target: HTMLElement, h: VncHandlers, load: () => Promise<RFBConstructor> = loadRFB,
): Promise<VncLink> {
  if (c.transport === 'window') throw new AppError(`VNC: ${WINDOW_NO_VNC}`, 0, 'conflict');
  let RFB: RFBConstructor;
  try {
    RFB = await load();
  } catch (err) {
    throw new AppError(`The VNC client could not be loaded (${toAppError(err).message}); reload the page`, 0, 'internal');
  }
  return new Promise<VncLink>((resolve, reject) => {
    let rfb: RFBLike;
    try {
      // Shared: another viewer of the guest stays connected.
      rfb = new RFB(target, vncUrl(c, pid, nid), { shared: true, wsProtocols: [] });
    } catch (err) {
      reject(new AppError(`The VNC client could not start: ${toAppError(err).message}`, 0, 'internal'));
      return;
    }
    rfb.scaleViewport = true;
    rfb.resizeSession = false;
    rfb.background = 'transparent';
    let connected = false;
    let closed = false;
    const link: VncLink = {
      focus: () => rfb.focus(),
      close: () => {
        if (closed) return;
        closed = true;
        rfb.disconnect();
      },
    };
    let refusal: string | null = null;
    rfb.addEventListener('securityfailure', (e) => {
      const reason = (e as CustomEvent<{ reason?: string }>).detail?.reason;
      refusal = `The VNC server refused the connection${reason ? `: ${reason}` : ''}`;
    });
    rfb.addEventListener('credentialsrequired', () => {
      refusal = 'The VNC server asks for a password, which the VNC tab cannot give; use your VNC viewer (Terminal)';
      rfb.disconnect();
    });
    rfb.addEventListener('connect', () => {
      connected = true;
      resolve(link);
    });
    rfb.addEventListener('disconnect', (e) => {
      if (!connected) {
        closed = true;
        reject(new AppError(refusal ?? 'The VNC console could not be reached', 0, 'conflict'));
        return;
      }
      if (closed) return;
      closed = true;
      const clean = (e as CustomEvent<{ clean?: boolean }>).detail?.clean;
      h.onClose(clean ? 'the VNC server closed the connection' : 'the connection to the VNC server was lost');
    });
  });
}
