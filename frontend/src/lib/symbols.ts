// The pictures of nodes: the server's symbol drawings (api/symbols/*.svg,
// which GET /v2/symbols/{id}/raw serves to GNS3 clients) bundled into the
// page at build time, so that the page draws them the same in a browser and
// in the desktop window (whose API calls go through a binding, not HTTP),
// without a request per node. They are shown as images (data: URLs in
// <img>), never as markup in the page.

import genericSVG from '../assets/generic.svg?raw';

const files = import.meta.glob<string>('../../../api/symbols/*.svg', { query: '?raw', import: 'default', eager: true });

/** The prefix of the builtin symbols' ids (":/symbols/router.svg"). */
export const SYMBOL_PREFIX = ':/symbols/';

/** The builtin symbols' drawings (SVG text) by symbol id. */
export const SYMBOL_SVGS: ReadonlyMap<string, string> = new Map(
  Object.entries(files).map(([file, svg]) => [SYMBOL_PREFIX + file.slice(file.lastIndexOf('/') + 1), svg]),
);

/** The drawing of a symbol nodedesk does not ship (a user's own file). */
export const GENERIC_SVG: string = genericSVG;

function dataURL(svg: string): string {
  return 'data:image/svg+xml;charset=utf-8,' + encodeURIComponent(svg);
}

const urls = new Map([...SYMBOL_SVGS].map(([id, svg]) => [id, dataURL(svg)]));
const genericURL = dataURL(GENERIC_SVG);

/** isBuiltinSymbol says whether nodedesk has a drawing of the symbol. */
export function isBuiltinSymbol(symbol: string | null | undefined): boolean {
  return symbol != null && urls.has(symbol);
}

/** symbolURL is the image of a symbol: its drawing, or the generic device
 * for any other (a custom symbol such as "my_router.png", or none). */
export function symbolURL(symbol: string | null | undefined): string {
  return (symbol != null && urls.get(symbol)) || genericURL;
}
