// An emulator is a plug-in (decision 0059): the page names it, in a
// string, in at most two of its source files (its registry entry and one
// more, such as its editor's test ids). A view that tests for a type by
// its name fails here; it asks the registry instead.

import { describe, expect, it } from 'vitest';

const sources: Record<string, string> = import.meta.glob(
  ['../**/*.ts', '../**/*.svelte', '!../**/*.test.ts', '!../**/*.spec.ts', '!../lib/openapi.d.ts'],
  { query: '?raw', import: 'default', eager: true },
);

/** The string literals of a source: '…', "…" and `…`. */
const literals = (text: string) => text.match(/'[^'\n]*'|"[^"\n]*"|`[^`]*`/g) ?? [];

describe('each emulator is named in at most two files of the page', () => {
  it('reads the sources', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(50);
  });
  for (const emulator of ['qemu', 'docker', 'dynamips', 'vpcs', 'iou']) {
    it(emulator, () => {
      const word = new RegExp(`\\b${emulator}\\b`, 'i');
      const files = Object.entries(sources)
        .filter(([, text]) => literals(text).some((l) => word.test(l)))
        .map(([file]) => file)
        .sort();
      expect(files.length, files.join(', ')).toBeLessThanOrEqual(2);
    });
  }
});
