// The canvas keyboard: which command a key press means.

export type KeyCommand =
  | { kind: 'delete' }
  | { kind: 'selectAll' }
  | { kind: 'escape' }
  | { kind: 'nudge'; dx: number; dy: number }
  | { kind: 'openConsole' }
  | { kind: 'moveConsole'; delta: 1 | -1 }
  | { kind: 'closeConsole' }
  | { kind: 'openFile' }
  | { kind: 'save' }
  | { kind: 'saveAs' }
  | { kind: 'export' }
  | { kind: 'checks' }
  | { kind: 'undo' }
  | { kind: 'redo' }
  | { kind: 'copy' }
  | { kind: 'paste' }
  | { kind: 'duplicate' };

export interface KeyInput {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  /** The key went to a text field, select or other editable element. */
  inField: boolean;
}

export const NUDGE = 10;
export const NUDGE_FINE = 1;

/** The console keys, as the UI shows them. */
export const CONSOLE_KEYS = {
  open: 'Alt+Enter',
  next: 'Alt+PageDown',
  previous: 'Alt+PageUp',
  close: 'Alt+Shift+W',
} as const;

/** The editing keys, as the UI shows them (Ctrl+Y redoes too). */
export const EDIT_KEYS = {
  undo: 'Ctrl+Z',
  redo: 'Ctrl+Shift+Z',
  copy: 'Ctrl+C',
  paste: 'Ctrl+V',
  duplicate: 'Ctrl+D',
} as const;

/** The project keys, as the UI shows them (Ctrl+S only says that every
 * change is saved already). */
export const PROJECT_KEYS = {
  open: 'Ctrl+O',
  saveAs: 'Ctrl+Shift+S',
  export: 'Ctrl+E',
  checks: 'Ctrl+Shift+K',
} as const;

export function commandForKey(k: KeyInput): KeyCommand | null {
  if (k.key === 'Escape') return { kind: 'escape' };
  // The console keys work from a terminal too (its input is a text
  // field): Alt with keys consoles hardly use, and no browser takes.
  if (k.altKey && !k.ctrlKey && !k.metaKey) {
    if (k.key === 'PageDown') return { kind: 'moveConsole', delta: 1 };
    if (k.key === 'PageUp') return { kind: 'moveConsole', delta: -1 };
    if (k.shiftKey && (k.key === 'W' || k.key === 'w')) return { kind: 'closeConsole' };
    if (!k.shiftKey && k.key === 'Enter' && !k.inField) return { kind: 'openConsole' };
  }
  if (k.inField || k.altKey) return null;
  if (k.ctrlKey || k.metaKey) {
    switch (k.key.toLowerCase()) {
      case 'a': return { kind: 'selectAll' };
      case 'o': return k.shiftKey ? null : { kind: 'openFile' };
      case 's': return { kind: k.shiftKey ? 'saveAs' : 'save' };
      case 'e': return k.shiftKey ? null : { kind: 'export' };
      case 'k': return k.shiftKey ? { kind: 'checks' } : null;
      // Never while typing (above): a field's own undo and clipboard stay
      // its own, and so do the terminal's keys (its input is a textarea).
      case 'z': return { kind: k.shiftKey ? 'redo' : 'undo' };
      case 'y': return k.shiftKey ? null : { kind: 'redo' };
      case 'c': return k.shiftKey ? null : { kind: 'copy' };
      case 'v': return k.shiftKey ? null : { kind: 'paste' };
      case 'd': return k.shiftKey ? null : { kind: 'duplicate' };
      default: return null;
    }
  }
  if (k.key === 'Delete' || k.key === 'Backspace') return { kind: 'delete' };
  const step = k.shiftKey ? NUDGE_FINE : NUDGE;
  switch (k.key) {
    case 'ArrowLeft': return { kind: 'nudge', dx: -step, dy: 0 };
    case 'ArrowRight': return { kind: 'nudge', dx: step, dy: 0 };
    case 'ArrowUp': return { kind: 'nudge', dx: 0, dy: -step };
    case 'ArrowDown': return { kind: 'nudge', dx: 0, dy: step };
    default: return null;
  }
}

/** isEditable says whether a key event target takes typing itself. */
export function isEditable(t: EventTarget | null): boolean {
  const el = t as { tagName?: string; isContentEditable?: boolean; type?: string } | null;
  if (!el || typeof el.tagName !== 'string') return false;
  const tag = el.tagName.toUpperCase();
  if (tag === 'TEXTAREA' || tag === 'SELECT' || el.isContentEditable) return true;
  if (tag !== 'INPUT') return false;
  return !['checkbox', 'radio', 'button', 'submit', 'reset'].includes((el.type ?? 'text').toLowerCase());
}
