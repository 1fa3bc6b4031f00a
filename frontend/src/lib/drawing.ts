// A drawing's SVG (a string another client wrote: GNS3's GUI, a .gns3
// file, a script) as the canvas draws it. The string is never put in the
// page as markup: it is parsed, and only the shapes GNS3 draws (rect,
// ellipse, line, text) with their geometry, colours and font are kept, as
// plain values that the view sets as attributes. Anything else (scripts,
// event handlers, links, images, foreign elements, styles) is dropped.

export interface Paint {
  fill: string | null;
  fillOpacity: number | null;
  stroke: string | null;
  strokeWidth: number | null;
  strokeDasharray: string | null;
}

export type Shape =
  | ({ tag: 'rect'; x: number; y: number; width: number; height: number; rx: number | null; ry: number | null } & Paint)
  | ({ tag: 'ellipse'; cx: number; cy: number; rx: number; ry: number } & Paint)
  | ({ tag: 'line'; x1: number; y1: number; x2: number; y2: number } & Paint)
  | ({ tag: 'text'; text: string; fontFamily: string | null; fontSize: number | null; fontWeight: string | null; fontStyle: string | null } & Paint);

export type ShapeTag = Shape['tag'];
export const SHAPE_TAGS: readonly ShapeTag[] = ['text', 'rect', 'ellipse', 'line'];

/** A drawing's SVG as the canvas draws it. */
export interface Picture {
  width: number;
  height: number;
  shapes: Shape[];
  /** Something was dropped (an image, a foreign element, unreadable SVG). */
  dropped: boolean;
}

const COLOR = /^(#[0-9a-fA-F]{3,8}|[a-zA-Z]{1,30}|rgba?\(\s*[\d.%\s,]+\))$/;
const DASH = /^[\d.\s,]{1,60}$/;
const FONT_FAMILY = /^[\w\s,'"-]{1,80}$/;
const WORD = /^[\w-]{1,20}$/;

/** color is a paint value that is a colour and nothing else (no url(), no expressions). */
export function color(v: string | null): string | null {
  if (v === null) return null;
  const s = v.trim();
  return COLOR.test(s) ? s : null;
}

function num(v: string | null, fallback: number): number {
  if (v === null) return fallback;
  const n = parseFloat(v);
  return Number.isFinite(n) ? n : fallback;
}

function optNum(v: string | null): number | null {
  const n = num(v, NaN);
  return Number.isNaN(n) ? null : n;
}

const match = (v: string | null, re: RegExp) => (v !== null && re.test(v.trim()) ? v.trim() : null);

function paint(el: Element): Paint {
  const fo = optNum(el.getAttribute('fill-opacity'));
  return {
    fill: color(el.getAttribute('fill')),
    fillOpacity: fo === null ? null : Math.min(1, Math.max(0, fo)),
    stroke: color(el.getAttribute('stroke')),
    strokeWidth: optNum(el.getAttribute('stroke-width')),
    strokeDasharray: match(el.getAttribute('stroke-dasharray'), DASH),
  };
}

function shapeOf(el: Element): Shape | null {
  const a = (k: string) => el.getAttribute(k);
  switch (el.localName) {
    case 'rect':
      return { tag: 'rect', x: num(a('x'), 0), y: num(a('y'), 0), width: num(a('width'), 0), height: num(a('height'), 0), rx: optNum(a('rx')), ry: optNum(a('ry')), ...paint(el) };
    case 'ellipse':
      return { tag: 'ellipse', cx: num(a('cx'), 0), cy: num(a('cy'), 0), rx: num(a('rx'), 0), ry: num(a('ry'), 0), ...paint(el) };
    case 'line':
      return { tag: 'line', x1: num(a('x1'), 0), y1: num(a('y1'), 0), x2: num(a('x2'), 0), y2: num(a('y2'), 0), ...paint(el) };
    case 'text':
      return {
        tag: 'text', text: el.textContent ?? '', fontFamily: match(a('font-family'), FONT_FAMILY), fontSize: optNum(a('font-size')),
        fontWeight: match(a('font-weight'), WORD), fontStyle: match(a('font-style'), WORD), ...paint(el),
      };
    default:
      return null;
  }
}

/** parsePicture reads a drawing's SVG, keeping only what the canvas draws. */
export function parsePicture(svg: string, parser: DOMParser = new DOMParser()): Picture {
  const doc = parser.parseFromString(svg, 'image/svg+xml');
  const root = doc.documentElement;
  if (!root || root.localName !== 'svg' || doc.getElementsByTagName('parsererror').length > 0) {
    return { width: 0, height: 0, shapes: [], dropped: svg.trim() !== '' };
  }
  const shapes: Shape[] = [];
  let dropped = false;
  for (const el of Array.from(root.children)) {
    const s = shapeOf(el);
    if (s) shapes.push(s);
    else dropped = true;
  }
  let width = num(root.getAttribute('width'), NaN);
  let height = num(root.getAttribute('height'), NaN);
  if (Number.isNaN(width) || Number.isNaN(height)) {
    const [bw, bh] = box(shapes);
    if (Number.isNaN(width)) width = bw;
    if (Number.isNaN(height)) height = bh;
  }
  return { width: Math.max(0, width), height: Math.max(0, height), shapes, dropped };
}

function box(shapes: readonly Shape[]): [number, number] {
  let w = 0, h = 0;
  for (const s of shapes) {
    if (s.tag === 'rect') { w = Math.max(w, s.x + s.width); h = Math.max(h, s.y + s.height); }
    if (s.tag === 'ellipse') { w = Math.max(w, s.cx + s.rx); h = Math.max(h, s.cy + s.ry); }
    if (s.tag === 'line') { w = Math.max(w, s.x1, s.x2); h = Math.max(h, s.y1, s.y2); }
  }
  return [w, h];
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n = (v: number) => String(Math.round(v * 100) / 100);

function paintAttrs(p: Paint): [string, string | null][] {
  return [
    ['fill', p.fill], ['fill-opacity', p.fillOpacity === null ? null : String(p.fillOpacity)],
    ['stroke', p.stroke], ['stroke-width', p.strokeWidth === null ? null : n(p.strokeWidth)], ['stroke-dasharray', p.strokeDasharray],
  ];
}

function attrs(list: [string, string | null][]): string {
  return list.filter(([, v]) => v !== null).map(([k, v]) => ` ${k}="${esc(v!)}"`).join('');
}

function shapeSvg(s: Shape): string {
  switch (s.tag) {
    case 'rect':
      return `<rect${attrs([['x', s.x ? n(s.x) : null], ['y', s.y ? n(s.y) : null], ['width', n(s.width)], ['height', n(s.height)], ['rx', s.rx === null ? null : n(s.rx)], ['ry', s.ry === null ? null : n(s.ry)], ...paintAttrs(s)])} />`;
    case 'ellipse':
      return `<ellipse${attrs([['cx', n(s.cx)], ['cy', n(s.cy)], ['rx', n(s.rx)], ['ry', n(s.ry)], ...paintAttrs(s)])} />`;
    case 'line':
      return `<line${attrs([['x1', n(s.x1)], ['y1', n(s.y1)], ['x2', n(s.x2)], ['y2', n(s.y2)], ...paintAttrs(s)])} />`;
    case 'text':
      return `<text${attrs([...paintAttrs(s), ['font-family', s.fontFamily], ['font-size', s.fontSize === null ? null : s.fontSize.toFixed(1)], ['font-style', s.fontStyle], ['font-weight', s.fontWeight]])}>${esc(s.text)}</text>`;
  }
}

/** serializePicture writes a picture as GNS3 writes a drawing's SVG. */
export function serializePicture(p: Picture): string {
  return `<svg height="${n(p.height)}" width="${n(p.width)}">${p.shapes.map(shapeSvg).join('')}</svg>`;
}

/** A new drawing's picture, as GNS3's GUI makes them. */
export function newPicture(tag: ShapeTag): Picture {
  switch (tag) {
    case 'text':
      return { width: 120, height: 24, dropped: false, shapes: [{ tag: 'text', text: 'Note', fontFamily: 'TypeWriter', fontSize: 10, fontWeight: 'bold', fontStyle: null, fill: '#000000', fillOpacity: 1, stroke: null, strokeWidth: null, strokeDasharray: null }] };
    case 'rect':
      return { width: 200, height: 100, dropped: false, shapes: [{ tag: 'rect', x: 0, y: 0, width: 200, height: 100, rx: null, ry: null, fill: '#ffffff', fillOpacity: 1, stroke: '#000000', strokeWidth: 2, strokeDasharray: null }] };
    case 'ellipse':
      return { width: 200, height: 100, dropped: false, shapes: [{ tag: 'ellipse', cx: 100, cy: 50, rx: 100, ry: 50, fill: '#ffffff', fillOpacity: 1, stroke: '#000000', strokeWidth: 2, strokeDasharray: null }] };
    case 'line':
      return { width: 200, height: 4, dropped: false, shapes: [{ tag: 'line', x1: 0, y1: 0, x2: 200, y2: 0, fill: null, fillOpacity: null, stroke: '#000000', strokeWidth: 2, strokeDasharray: null }] };
  }
}

/** resizePicture scales a picture's shapes to a new size (a resize on the canvas). */
export function resizePicture(p: Picture, width: number, height: number): Picture {
  const sx = p.width > 0 ? width / p.width : 1;
  const sy = p.height > 0 ? height / p.height : 1;
  const shapes = p.shapes.map((s): Shape => {
    switch (s.tag) {
      case 'rect': return { ...s, x: s.x * sx, y: s.y * sy, width: s.width * sx, height: s.height * sy };
      case 'ellipse': return { ...s, cx: s.cx * sx, cy: s.cy * sy, rx: s.rx * sx, ry: s.ry * sy };
      case 'line': return { ...s, x1: s.x1 * sx, y1: s.y1 * sy, x2: s.x2 * sx, y2: s.y2 * sy };
      case 'text': return s;
    }
  });
  return { ...p, width: Math.round(width), height: Math.round(height), shapes };
}

/** The size a text's box needs (roughly: GNS3 measures it with Qt's fonts). */
export function textBox(text: string, fontSize: number | null): { width: number; height: number } {
  const size = fontSize ?? 10;
  const lines = text.split('\n');
  const longest = Math.max(1, ...lines.map((l) => l.length));
  return { width: Math.ceil(longest * size * 0.75) + 8, height: Math.ceil(lines.length * size * 1.4) + 8 };
}

/** withShape changes the first shape of a picture (what the panel edits);
 * a text's box follows its text. */
export function withShape(p: Picture, change: Partial<Shape>): Picture {
  const [first, ...rest] = p.shapes;
  if (!first) return p;
  const s = { ...first, ...change } as Shape;
  let { width, height } = p;
  if (s.tag === 'text') ({ width, height } = textBox(s.text, s.fontSize));
  return { ...p, width, height, shapes: [s, ...rest] };
}
