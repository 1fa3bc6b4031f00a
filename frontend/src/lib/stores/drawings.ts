// The drawings of the project shown (notes and shapes), kept in step with
// the server, and the drawing tool picked in the toolbar.

import { derived, get, writable } from 'svelte/store';
import * as api from '../api';
import { newPicture, serializePicture, type ShapeTag } from '../drawing';
import { nudged, type XY } from '../layout';
import { failed } from './notices';
import type { Drawing, DrawingEvent, DrawingUpdate } from '../types';

export const drawings = writable<ReadonlyMap<string, Drawing>>(new Map());
export const drawingList = derived(drawings, (m) => [...m.values()]);

/** The shape the next click on the canvas draws (null: none). */
export const drawTool = writable<ShapeTag | null>(null);

export function setDrawings(list: readonly Drawing[]): void {
  drawings.set(new Map(list.map((d) => [d.drawing_id, d])));
}

/** upsertDrawing stores a drawing; an event without svg keeps the svg known. */
export function upsertDrawing(d: DrawingEvent): void {
  drawings.update((m) => {
    const svg = d.svg ?? m.get(d.drawing_id)?.svg;
    if (svg === undefined) return m; // an update of a drawing never seen: the next load has it
    return new Map(m).set(d.drawing_id, { ...d, svg });
  });
}

export function removeDrawing(id: string): void {
  drawings.update((m) => {
    if (!m.has(id)) return m;
    const next = new Map(m);
    next.delete(id);
    return next;
  });
}

export async function addDrawing(pid: string, tag: ShapeTag, at: XY): Promise<Drawing> {
  const d = await api.createDrawing(pid, { svg: serializePicture(newPicture(tag)), x: Math.round(at.x), y: Math.round(at.y) });
  upsertDrawing(d);
  return d;
}

/** saveDrawing sends one PUT; the drawing changes here once the server
 * agreed — unless it was deleted meanwhile (its drawing.deleted event can
 * come before the PUT's answer): an answer never brings a drawing back. */
export async function saveDrawing(pid: string, did: string, body: DrawingUpdate): Promise<Drawing> {
  const d = await api.updateDrawing(pid, did, body);
  if (get(drawings).has(did)) upsertDrawing(d);
  return d;
}

/** moveDrawing shows a drawing where it was dropped at once and saves it
 * there; when the server refuses, it goes back. */
export async function moveDrawing(pid: string, did: string, body: DrawingUpdate): Promise<void> {
  const before = get(drawings).get(did);
  if (before) upsertDrawing({ ...before, ...body });
  try {
    await saveDrawing(pid, did, body);
  } catch (err) {
    const now = get(drawings).get(did);
    if (before && now) upsertDrawing({ ...now, x: before.x, y: before.y, svg: before.svg });
    throw err;
  }
}

export async function deleteDrawing(pid: string, did: string): Promise<void> {
  await api.deleteDrawing(pid, did);
  removeDrawing(did);
}

let nudging = new Map<string, XY>(); // drawing → where it was before the burst
let nudgeTimer: ReturnType<typeof setTimeout> | null = null;

/** nudgeDrawings moves unlocked drawings by (dx, dy) at once and saves
 * them shortly after the last key press (one PUT each for a burst). */
export function nudgeDrawings(pid: string, ids: Iterable<string>, dx: number, dy: number): void {
  const all = get(drawings);
  for (const id of ids) {
    const d = all.get(id);
    if (!d || d.locked) continue;
    if (!nudging.has(id)) nudging.set(id, { x: d.x, y: d.y });
    upsertDrawing({ ...d, ...nudged(d, dx, dy) });
  }
  if (nudgeTimer) clearTimeout(nudgeTimer);
  nudgeTimer = setTimeout(() => {
    const batch = nudging;
    nudging = new Map();
    nudgeTimer = null;
    for (const [id, from] of batch) {
      const now = get(drawings).get(id);
      if (!now) continue;
      saveDrawing(pid, id, { x: now.x, y: now.y }).catch((err) => {
        const cur = get(drawings).get(id);
        if (cur) upsertDrawing({ ...cur, ...from });
        failed('Could not move the drawing', err);
      });
    }
  }, 300);
}
