import { afterEach, describe, expect, it, vi } from 'vitest';
import * as api from './api';
import { useEnv } from './api';
import { currentGesture, gesture, newGestureId, withGesture } from './gesture';
import { vpcs } from './testdata';

const LOCATION = { protocol: 'http:', host: '127.0.0.1:3080' };
type Seen = { method: string; origin: string | null; gesture: string | null };

function browser() {
  const seen: Seen[] = [];
  const fetch = vi.fn(async (req: Request) => {
    seen.push({ method: req.method, origin: req.headers.get('X-Nodedesk-Origin'), gesture: req.headers.get('X-Nodedesk-Gesture') });
    return new Response(JSON.stringify(vpcs('n1')), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  useEnv({ fetch, location: LOCATION });
  return seen;
}

describe('gestures', () => {
  afterEach(() => expect(currentGesture()).toBeNull());

  it('makes ids the server takes: printable ASCII, no spaces, at most 64, each new', () => {
    const a = newGestureId(), b = newGestureId();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^[\x21-\x7e]{1,64}$/);
  });

  it('gives the id to the requests a step starts before its first await, and to no other', async () => {
    const seen = browser();
    const g = gesture('g1');
    await g(() => Promise.all([api.updateNode('p1', 'a', { x: 1 }), api.updateNode('p1', 'b', { x: 2 })]));
    await api.updateNode('p1', 'c', { x: 3 }); // outside: none
    await g(async () => {
      await api.deleteNode('p1', 'a');
      await api.deleteNode('p1', 'b'); // after an await: the step is over
    });
    expect(seen.map((s) => s.gesture)).toEqual(['g1', 'g1', null, 'g1', null]);
  });

  it('withGesture joins the gesture under way, or makes one', async () => {
    const seen = browser();
    await gesture('outer')(() => withGesture(() => api.updateNode('p1', 'a', { x: 1 })));
    await withGesture(() => Promise.all([api.updateNode('p1', 'a', { x: 1 }), api.updateNode('p1', 'b', { x: 1 })]));
    expect(seen[0].gesture).toBe('outer');
    expect(seen[1].gesture).toMatch(/^ui-/);
    expect(seen[2].gesture).toBe(seen[1].gesture);
  });

  it('marks every write of a browser as the browser\'s, and no read', async () => {
    const seen = browser();
    await api.getNode('p1', 'n1');
    await api.updateNode('p1', 'n1', { name: 'x' });
    await api.undo('p1').catch(() => undefined);
    expect(seen.map((s) => `${s.method} ${s.origin}`)).toEqual(['GET browser', 'PUT browser', 'POST browser']);
  });

  it('sends a gesture\'s writes through CallGesture in the window, and says no origin (the door does)', async () => {
    const answer = { status: 200, body: JSON.stringify(vpcs('n1')) };
    const Call = vi.fn(async () => answer);
    const CallGesture = vi.fn(async () => answer);
    useEnv({ go: { desktop: { App: { Call, CallGesture } } }, location: LOCATION });
    await gesture('g2')(() => api.updateNode('p1', 'n1', { x: 5 }));
    await api.updateNode('p1', 'n1', { x: 6 });
    expect(CallGesture.mock.calls).toEqual([['g2', 'PUT', '/v2/projects/p1/nodes/n1', '{"x":5}']]);
    expect(Call.mock.calls).toEqual([['PUT', '/v2/projects/p1/nodes/n1', '{"x":6}']]);
  });

  it('still makes the change in a window without CallGesture (an older nodedesk)', async () => {
    const Call = vi.fn(async () => ({ status: 200, body: JSON.stringify(vpcs('n1')) }));
    useEnv({ go: { desktop: { App: { Call } } }, location: LOCATION });
    await gesture('g3')(() => api.updateNode('p1', 'n1', { x: 5 }));
    expect(Call).toHaveBeenCalledTimes(1);
  });
});
