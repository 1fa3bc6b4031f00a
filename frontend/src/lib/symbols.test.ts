import { describe, expect, it } from 'vitest';
import { GENERIC_SVG, isBuiltinSymbol, SYMBOL_PREFIX, SYMBOL_SVGS, symbolURL } from './symbols';

// Every file of the folder the server serves its symbols from: api/symbols.go
// embeds it, and its test holds it to GET /v2/symbols.
const folder = import.meta.glob<string>('../../../api/symbols/*', { query: '?raw', import: 'default', eager: true });
const served = new Map(Object.entries(folder).map(([f, text]) => [SYMBOL_PREFIX + f.slice(f.lastIndexOf('/') + 1), text]));

function decode(url: string): string {
  const prefix = 'data:image/svg+xml;charset=utf-8,';
  expect(url.startsWith(prefix)).toBe(true);
  return decodeURIComponent(url.slice(prefix.length));
}

describe('node symbols', () => {
  it("draws every symbol the server serves with the server's own file", () => {
    expect(served.size).toBeGreaterThanOrEqual(14);
    expect([...SYMBOL_SVGS.keys()].sort()).toEqual([...served.keys()].sort());
    for (const [id, file] of served) {
      expect(isBuiltinSymbol(id), id).toBe(true);
      expect(decode(symbolURL(id)), id).toBe(file);
      expect(file, id).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="\d+" height="\d+"/);
    }
  });

  it('draws a symbol it does not ship, or none, as a generic device', () => {
    for (const id of ['my_router.png', ':/symbols/unknown.svg', 'router.svg', '', null, undefined]) {
      expect(isBuiltinSymbol(id)).toBe(false);
      expect(decode(symbolURL(id))).toBe(GENERIC_SVG);
    }
    expect(GENERIC_SVG).toMatch(/^<svg [^>]*width="65" height="59"/);
    expect(symbolURL(':/symbols/router.svg')).not.toBe(symbolURL('my_router.png'));
  });
});
