import { describe, expect, it } from 'vitest';
import { commandForKey, isEditable, type KeyInput } from './keyboard';

const k = (key: string, over: Partial<KeyInput> = {}): KeyInput => ({ key, ctrlKey: false, metaKey: false, shiftKey: false, altKey: false, inField: false, ...over });

describe('canvas keys', () => {
  it('Delete and Backspace delete the selection', () => {
    expect(commandForKey(k('Delete'))).toEqual({ kind: 'delete' });
    expect(commandForKey(k('Backspace'))).toEqual({ kind: 'delete' });
  });
  it('Ctrl+A and Cmd+A select all', () => {
    expect(commandForKey(k('a', { ctrlKey: true }))).toEqual({ kind: 'selectAll' });
    expect(commandForKey(k('A', { metaKey: true, shiftKey: true }))).toEqual({ kind: 'selectAll' });
  });
  it('arrows nudge by 10 px, with Shift by 1 px', () => {
    expect(commandForKey(k('ArrowRight'))).toEqual({ kind: 'nudge', dx: 10, dy: 0 });
    expect(commandForKey(k('ArrowUp', { shiftKey: true }))).toEqual({ kind: 'nudge', dx: 0, dy: -1 });
  });
  it('Escape works everywhere; other keys are left to text fields', () => {
    expect(commandForKey(k('Escape', { inField: true }))).toEqual({ kind: 'escape' });
    expect(commandForKey(k('Delete', { inField: true }))).toBeNull();
    expect(commandForKey(k('a', { ctrlKey: true, inField: true }))).toBeNull();
    expect(commandForKey(k('x'))).toBeNull();
    expect(commandForKey(k('Delete', { ctrlKey: true }))).toBeNull();
  });
  it('Ctrl+Z undoes, Ctrl+Shift+Z and Ctrl+Y redo, Ctrl+C/V/D copy, paste and duplicate; none while typing', () => {
    expect(commandForKey(k('z', { ctrlKey: true }))).toEqual({ kind: 'undo' });
    expect(commandForKey(k('Z', { ctrlKey: true, shiftKey: true }))).toEqual({ kind: 'redo' });
    expect(commandForKey(k('z', { metaKey: true, shiftKey: true }))).toEqual({ kind: 'redo' });
    expect(commandForKey(k('y', { ctrlKey: true }))).toEqual({ kind: 'redo' });
    expect(commandForKey(k('c', { ctrlKey: true }))).toEqual({ kind: 'copy' });
    expect(commandForKey(k('v', { ctrlKey: true }))).toEqual({ kind: 'paste' });
    expect(commandForKey(k('d', { ctrlKey: true }))).toEqual({ kind: 'duplicate' });
    for (const key of ['z', 'y', 'c', 'v', 'd']) expect(commandForKey(k(key, { ctrlKey: true, inField: true }))).toBeNull();
    expect(commandForKey(k('z', { ctrlKey: true, altKey: true }))).toBeNull();
  });
  it('console keys: Alt+Enter opens (not from a field), Alt+PageDown/PageUp move and Alt+Shift+W closes, from a terminal too', () => {
    expect(commandForKey(k('Enter', { altKey: true }))).toEqual({ kind: 'openConsole' });
    expect(commandForKey(k('Enter', { altKey: true, inField: true }))).toBeNull();
    expect(commandForKey(k('PageDown', { altKey: true, inField: true }))).toEqual({ kind: 'moveConsole', delta: 1 });
    expect(commandForKey(k('PageUp', { altKey: true }))).toEqual({ kind: 'moveConsole', delta: -1 });
    expect(commandForKey(k('W', { altKey: true, shiftKey: true, inField: true }))).toEqual({ kind: 'closeConsole' });
    expect(commandForKey(k('w', { altKey: true }))).toBeNull();
    expect(commandForKey(k('PageDown', { altKey: true, ctrlKey: true }))).toBeNull();
    expect(commandForKey(k('Enter'))).toBeNull();
  });
  it('project keys: Ctrl+O opens a file, Ctrl+Shift+S saves as, Ctrl+E exports, Ctrl+S saves (already done); not from a field', () => {
    expect(commandForKey(k('o', { ctrlKey: true }))).toEqual({ kind: 'openFile' });
    expect(commandForKey(k('S', { ctrlKey: true, shiftKey: true }))).toEqual({ kind: 'saveAs' });
    expect(commandForKey(k('s', { metaKey: true }))).toEqual({ kind: 'save' });
    expect(commandForKey(k('e', { ctrlKey: true }))).toEqual({ kind: 'export' });
    expect(commandForKey(k('E', { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(commandForKey(k('o', { ctrlKey: true, inField: true }))).toBeNull();
    expect(commandForKey(k('e', { ctrlKey: true, altKey: true }))).toBeNull();
    expect(commandForKey(k('o'))).toBeNull();
  });
  it('Ctrl+Shift+K opens or closes the Checks panel; Ctrl+K alone does nothing', () => {
    expect(commandForKey(k('K', { ctrlKey: true, shiftKey: true }))).toEqual({ kind: 'checks' });
    expect(commandForKey(k('k', { ctrlKey: true }))).toBeNull();
    expect(commandForKey(k('K', { ctrlKey: true, shiftKey: true, inField: true }))).toBeNull();
  });
  it('knows which elements take typing', () => {
    expect(isEditable({ tagName: 'INPUT', type: 'text' } as unknown as EventTarget)).toBe(true);
    expect(isEditable({ tagName: 'INPUT', type: 'checkbox' } as unknown as EventTarget)).toBe(false);
    expect(isEditable({ tagName: 'TEXTAREA' } as unknown as EventTarget)).toBe(true);
    expect(isEditable({ tagName: 'DIV', isContentEditable: false } as unknown as EventTarget)).toBe(false);
    expect(isEditable(null)).toBe(false);
  });
});
