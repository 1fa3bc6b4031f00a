// Gestures: one thing the user does (drag a selection, delete it, paste)
// that takes several requests, and is one entry of the project's history.
// Every write made inside a gesture carries its id (transport.ts decides
// how: the X-Nodedesk-Gesture header in a browser, App.CallGesture in the
// window), and the server merges consecutive writes of one gesture into
// one entry.
//
// The id is taken when a request is made, synchronously: api.ts reads
// currentGesture() as a wrapper is called, before its first await. So a
// step of a gesture is a function whose requests start before it first
// awaits (stores' writes do: they call the api at once); a gesture of
// several awaited steps runs each step through the same Gesture.

/** A gesture: runs fn with the gesture's id on every request fn starts
 * synchronously, and answers what fn answers. */
export type Gesture = <T>(fn: () => T) => T;

let current: string | null = null;
let counter = 0;

/** currentGesture is the id of the gesture under way, or null. */
export const currentGesture = (): string | null => current;

/** newGestureId is a fresh id: printable ASCII without spaces (the
 * server's rule), unique in this page and unlikely to meet another's.
 * crypto.randomUUID needs a secure context, which a LAN address is not. */
export function newGestureId(): string {
  counter += 1;
  return `ui-${Date.now().toString(36)}-${counter.toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

/** gesture makes a new gesture (or one of id). */
export function gesture(id: string = newGestureId()): Gesture {
  return <T>(fn: () => T): T => {
    const prev = current;
    current = id;
    try {
      return fn();
    } finally {
      current = prev;
    }
  };
}

/** withGesture runs fn inside the gesture under way, or a new one: a
 * helper that makes several writes is one gesture, alone or as part of a
 * larger one. */
export function withGesture<T>(fn: () => T): T {
  return current === null ? gesture()(fn) : fn();
}
