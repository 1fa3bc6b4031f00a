import { describe, expect, it } from 'vitest';
import { actionLabel, jumpTo, originNote, relativeTime } from './history';
import type { HistoryEntry } from './types';

const entry = (id: string, description = id, origin: HistoryEntry['origin'] = 'browser'): HistoryEntry =>
  ({ entry_id: id, description, origin, time: '2026-01-01T10:00:00Z' });

describe('history wording', () => {
  it('says which door a change came through when it is not this client\'s kind', () => {
    expect(actionLabel('Undo', entry('a', 'Renamed PC1', 'api'), 'browser')).toBe('Undo: Renamed PC1 (API)');
    expect(actionLabel('Redo', entry('a', 'Moved PC1 and 3 others', 'window'), 'browser')).toBe('Redo: Moved PC1 and 3 others (window)');
    expect(actionLabel('Undo', entry('a', 'Added PC2', 'browser'), 'window')).toBe('Undo: Added PC2 (browser)');
    expect(actionLabel('Undo', entry('a', 'Added PC2', 'browser'), 'browser')).toBe('Undo: Added PC2');
    expect(actionLabel('Undo', null, 'browser')).toBe('Nothing to undo');
    expect(originNote('window', 'window')).toBe('');
  });

  it('tells the time as a person would', () => {
    const t = Date.parse('2026-01-01T10:00:00Z');
    expect(relativeTime('2026-01-01T10:00:00Z', t + 3000)).toBe('just now');
    expect(relativeTime('2026-01-01T10:00:00Z', t + 42_000)).toBe('42 s ago');
    expect(relativeTime('2026-01-01T10:00:00Z', t + 5 * 60_000)).toBe('5 min ago');
    expect(relativeTime('2026-01-01T10:00:00Z', t + 3 * 3600_000)).toBe('3 h ago');
    expect(relativeTime('nonsense', t)).toBe('');
  });
});

describe('jumps of the history panel', () => {
  const undo = [entry('u3'), entry('u2'), entry('u1')]; // newest first
  const redo = [entry('r1'), entry('r2')]; // next first

  it('undoes back to an older entry, the state right after it', () => {
    expect(jumpTo(undo, redo, 'u1')).toEqual({ verb: 'undo', steps: 2 });
    expect(jumpTo(undo, redo, 'u2')).toEqual({ verb: 'undo', steps: 1 });
    expect(jumpTo(undo, redo, 'u3')).toBeNull(); // here now
  });
  it('undoes everything for the start', () => {
    expect(jumpTo(undo, redo, null)).toEqual({ verb: 'undo', steps: 3 });
    expect(jumpTo([], redo, null)).toBeNull();
  });
  it('redoes up to and including an undone entry', () => {
    expect(jumpTo(undo, redo, 'r1')).toEqual({ verb: 'redo', steps: 1 });
    expect(jumpTo(undo, redo, 'r2')).toEqual({ verb: 'redo', steps: 2 });
    expect(jumpTo(undo, redo, 'gone')).toBeNull();
  });
});
