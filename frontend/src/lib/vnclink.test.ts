import { describe, expect, it } from 'vitest';
import { AppError } from './errors';
import { connect } from './transport';
import { openVncLink, vncUrl, type RFBConstructor, type RFBLike } from './vnclink';

/** A stand-in for noVNC's RFB: it records how it was made and lets the
 * test play the server's part with its events. */
class FakeRFB extends EventTarget implements RFBLike {
  static made: FakeRFB[] = [];
  scaleViewport = false;
  resizeSession = true;
  background = '';
  disconnects = 0;
  focused = 0;
  constructor(readonly target: unknown, readonly url: string, readonly options?: { shared?: boolean; wsProtocols?: string[] }) {
    super();
    FakeRFB.made.push(this);
  }
  focus() {
    this.focused++;
  }
  disconnect() {
    this.disconnects++;
    this.dispatchEvent(new CustomEvent('disconnect', { detail: { clean: true } }));
  }
  emit(name: string, detail: unknown = {}) {
    this.dispatchEvent(new CustomEvent(name, { detail }));
  }
}

const browser = connect({ location: { protocol: 'http:', host: '127.0.0.1:3080' }, fetch: async () => new Response(null) });
const target = {} as HTMLElement;
const load = async () => FakeRFB as unknown as RFBConstructor;
const last = () => FakeRFB.made[FakeRFB.made.length - 1];

describe('a VNC link', () => {
  it("opens the node's VNC websocket, scaled to fit, and is open once the guest's screen shows", async () => {
    const closes: string[] = [];
    const opening = openVncLink(browser, 'p 1', 'n1', target, { onClose: (r) => closes.push(r) }, load);
    await Promise.resolve();
    await Promise.resolve();
    const rfb = last();
    expect(rfb.url).toBe('ws://127.0.0.1:3080/v2/projects/p%201/nodes/n1/console/vnc');
    expect(rfb.target).toBe(target);
    expect(rfb.options).toEqual({ shared: true, wsProtocols: [] });
    expect([rfb.scaleViewport, rfb.resizeSession]).toEqual([true, false]);
    rfb.emit('connect');
    const link = await opening;
    link.focus();
    expect(rfb.focused).toBe(1);
    // The server ends it: the tab is told why.
    rfb.emit('disconnect', { clean: false });
    expect(closes).toEqual(['the connection to the VNC server was lost']);
  });

  it('rejects when the console cannot be reached, saying why when the server said', async () => {
    const a = openVncLink(browser, 'p1', 'n1', target, { onClose: () => {} }, load);
    await new Promise((r) => setTimeout(r, 0));
    last().emit('disconnect', { clean: false });
    await expect(a).rejects.toMatchObject({ code: 'conflict', message: 'The VNC console could not be reached' });

    const b = openVncLink(browser, 'p1', 'n1', target, { onClose: () => {} }, load);
    await new Promise((r) => setTimeout(r, 0));
    last().emit('securityfailure', { status: 1, reason: 'too many clients' });
    last().emit('disconnect', { clean: true });
    await expect(b).rejects.toMatchObject({ message: 'The VNC server refused the connection: too many clients' });

    const c = openVncLink(browser, 'p1', 'n1', target, { onClose: () => {} }, load);
    await new Promise((r) => setTimeout(r, 0));
    last().emit('credentialsrequired', { types: ['password'] });
    await expect(c).rejects.toMatchObject({ message: expect.stringMatching(/password/) });
  });

  it('closed by the page, it disconnects without telling the tab', async () => {
    const closes: string[] = [];
    const opening = openVncLink(browser, 'p1', 'n1', target, { onClose: (r) => closes.push(r) }, load);
    await new Promise((r) => setTimeout(r, 0));
    last().emit('connect');
    const link = await opening;
    link.close();
    link.close();
    expect(last().disconnects).toBe(1);
    expect(closes).toEqual([]);
  });

  it('is not opened in the window, whose page cannot reach the websocket, nor when noVNC does not load', async () => {
    const window = connect({ go: { desktop: { App: { Call: async () => ({ status: 200, body: '' }) } } } });
    await expect(openVncLink(window, 'p1', 'n1', target, { onClose: () => {} }, load)).rejects.toBeInstanceOf(AppError);
    await expect(openVncLink(browser, 'p1', 'n1', target, { onClose: () => {} }, () => Promise.reject(new Error('chunk failed'))))
      .rejects.toMatchObject({ message: expect.stringMatching(/could not be loaded \(chunk failed\)/) });
    expect(vncUrl(connect({ location: { protocol: 'https:', host: 'lab:3080' } }), 'p', 'n')).toBe('wss://lab:3080/v2/projects/p/nodes/n/console/vnc');
  });
});
