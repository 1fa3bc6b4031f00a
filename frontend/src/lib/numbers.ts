// Numbers as a form types them and as people read them.

/** formatSize is a file size for people: "12.5 MB". */
export function formatSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${v} B` : `${v < 10 ? v.toFixed(1) : Math.round(v)} ${units[i]}`;
}

/** wholeNumber reads a number field as typed: '' is "leave it to the
 * server" (undefined), a whole number is itself, anything else null. */
export function wholeNumber(typed: string): number | undefined | null {
  const s = typed.trim();
  if (s === '') return undefined;
  return /^-?\d+$/.test(s) ? Number(s) : null;
}
