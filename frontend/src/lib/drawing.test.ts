// @vitest-environment happy-dom
import { describe, expect, it } from 'vitest';
import { newPicture, parsePicture, resizePicture, serializePicture, withShape, type Shape } from './drawing';

describe('drawing pictures', () => {
  it('reads the SVGs GNS3 writes', () => {
    const rect = parsePicture('<svg height="100" width="200"><rect fill="#ffffff" fill-opacity="1.0" height="100" stroke="#000000" stroke-width="2" width="200" /></svg>');
    expect(rect).toEqual({ width: 200, height: 100, dropped: false, shapes: [
      { tag: 'rect', x: 0, y: 0, width: 200, height: 100, rx: null, ry: null, fill: '#ffffff', fillOpacity: 1, stroke: '#000000', strokeWidth: 2, strokeDasharray: null },
    ] });
    const text = parsePicture('<svg height="24" width="85"><text fill="#000000" fill-opacity="1.0" font-family="TypeWriter" font-size="10.0" font-weight="bold">Some text</text></svg>');
    expect(text.shapes[0]).toMatchObject({ tag: 'text', text: 'Some text', fontFamily: 'TypeWriter', fontSize: 10, fontWeight: 'bold', fill: '#000000' });
    const line = parsePicture('<svg height="4" width="200"><line stroke="#000000" stroke-width="2" x1="0" x2="200" y1="0" y2="0" /></svg>');
    expect(line.shapes[0]).toMatchObject({ tag: 'line', x1: 0, x2: 200, y1: 0, y2: 0, stroke: '#000000', strokeWidth: 2 });
    const ell = parsePicture('<svg height="100" width="200"><ellipse cx="100" cy="50" rx="100" ry="50" fill="#ff0000"/></svg>');
    expect(ell.shapes[0]).toMatchObject({ tag: 'ellipse', cx: 100, cy: 50, rx: 100, ry: 50, fill: '#ff0000' });
  });

  it('keeps nothing dangerous from a hostile SVG', () => {
    const hostile = `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10" onload="alert(1)">
      <script>alert(2)</script>
      <rect width="10" height="10" onclick="alert(3)" fill="url(javascript:alert(4))" stroke="red;background:url(x)" style="behavior:url(x)" />
      <a href="javascript:alert(5)"><text>click</text></a>
      <image href="javascript:alert(6)" xlink:href="http://evil/x.png" />
      <foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(7)"/></div></foreignObject>
      <text font-family="x;}&lt;/style&gt;&lt;script&gt;alert(8)" fill="#000">&lt;script&gt;alert(9)&lt;/script&gt;</text>
    </svg>`;
    const p = parsePicture(hostile);
    expect(p.dropped).toBe(true);
    expect(p.shapes.map((s) => s.tag)).toEqual(['rect', 'text']);
    const [rect, text] = p.shapes as [Extract<Shape, { tag: 'rect' }>, Extract<Shape, { tag: 'text' }>];
    expect(rect.fill).toBeNull();
    expect(rect.stroke).toBeNull();
    expect(Object.keys(rect)).not.toContain('onclick');
    expect(text.fontFamily).toBeNull();
    expect(text.text).toBe('<script>alert(9)</script>'); // text, drawn as text
    const out = serializePicture(p);
    expect(out).not.toMatch(/<script|onload|onclick|javascript:|href|foreignObject|style=/i);
    expect(out).toContain('&lt;script&gt;');
    // What it writes reads back the same.
    expect(parsePicture(out).shapes).toEqual(p.shapes);
  });

  it('treats what is not SVG as nothing to draw', () => {
    expect(parsePicture('not <svg')).toMatchObject({ shapes: [], dropped: true });
    expect(parsePicture('<html><script>alert(1)</script></html>')).toMatchObject({ shapes: [], dropped: true });
    expect(parsePicture('')).toMatchObject({ shapes: [], dropped: false });
  });

  it('writes new drawings as GNS3 does, and reads them back', () => {
    expect(serializePicture(newPicture('rect'))).toBe(
      '<svg height="100" width="200"><rect width="200" height="100" fill="#ffffff" fill-opacity="1" stroke="#000000" stroke-width="2" /></svg>',
    );
    expect(serializePicture(newPicture('text'))).toBe(
      '<svg height="24" width="120"><text fill="#000000" fill-opacity="1" font-family="TypeWriter" font-size="10.0" font-weight="bold">Note</text></svg>',
    );
    for (const tag of ['text', 'rect', 'ellipse', 'line'] as const) {
      const p = newPicture(tag);
      expect(parsePicture(serializePicture(p))).toEqual(p);
    }
  });

  it('resizes shapes and fits a text box to its text', () => {
    const r = resizePicture(newPicture('ellipse'), 100, 40);
    expect(r).toMatchObject({ width: 100, height: 40, shapes: [{ cx: 50, cy: 20, rx: 50, ry: 20 }] });
    const l = resizePicture(newPicture('line'), 50, 4);
    expect(l.shapes[0]).toMatchObject({ x1: 0, x2: 50 });
    const t = withShape(newPicture('text'), { text: 'a much longer note\non two lines' });
    expect(t.height).toBeGreaterThan(24);
    expect(t.shapes[0]).toMatchObject({ text: 'a much longer note\non two lines' });
  });
});
