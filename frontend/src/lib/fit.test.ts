import { describe, expect, it } from 'vitest';
import { contentBox, drawingBox, fitView, inView, keepInView, minZoomFor, nodeBox, shownNames } from './fit';

describe('fit to view', () => {
  it('holds every node with its name and every drawing', () => {
    const b = contentBox([{ x: 0, y: 0 }, { x: 1000, y: 500 }], [{ x: -300, y: -100, width: 200, height: 50 }]);
    expect(b).toEqual({ x: -300, y: -100, width: 1000 + 104 + 300, height: 500 + 72 + 100 });
    expect(contentBox([], [])).toBeNull();
  });

  it('takes a rotated drawing as the box it covers once turned', () => {
    const b = drawingBox({ x: 0, y: 0, width: 100, height: 10, rotation: 90 });
    expect(b.x).toBeCloseTo(-10);
    expect(b.width).toBeCloseTo(10);
    expect(b.height).toBeCloseTo(100);
  });

  it('fits a lab far wider than zoom 0.2 shows, with nothing out of view', () => {
    // 27 rows of 10 nodes 400 px apart: 4,000 × 10,800 px in a 1,100 × 760 canvas.
    const nodes = Array.from({ length: 270 }, (_, i) => ({ x: (i % 10) * 400, y: Math.floor(i / 10) * 400 }));
    const box = contentBox(nodes, [])!;
    const v = fitView(box, 1100, 760, 24, 1.2);
    expect(v.zoom).toBeLessThan(0.2);
    for (const n of nodes) expect(inView(nodeBox(n), v, 1100, 760)).toBe(true);
    expect(minZoomFor(v.zoom)).toBeLessThanOrEqual(v.zoom);
  });

  it('centres a small lab and does not zoom in past the cap', () => {
    const box = { x: 100, y: 100, width: 100, height: 50 };
    const v = fitView(box, 1000, 500, 24, 1.2);
    expect(v.zoom).toBe(1.2);
    expect(box.x * v.zoom + v.x + (box.width * v.zoom) / 2).toBeCloseTo(500);
    expect(box.y * v.zoom + v.y + (box.height * v.zoom) / 2).toBeCloseTo(250);
    expect(minZoomFor(1.2)).toBe(0.2);
  });
});

describe('names far out', () => {
  it('shows names that do not overlap, the busiest nodes first, and all when there is room', () => {
    const spots = [
      { id: 'pc1', x: 0, y: 0, name: 'PC1-1', rank: 1 },
      { id: 'sw', x: 20, y: 0, name: 'DSW1', rank: 8 },
      { id: 'pc2', x: 2000, y: 0, name: 'PC1-2', rank: 1 },
    ];
    expect([...shownNames(spots, 0.15)].sort()).toEqual(['pc2', 'sw']);
    expect(shownNames(spots, 3).size).toBe(3); // 60 px apart on the screen: room for both
    expect(shownNames([spots[0], spots[2]], 0.15).size).toBe(2);
  });
});

describe('keeping the lab in view when the canvas shrinks (the console dock opens)', () => {
  const box = { x: 0, y: 0, width: 400, height: 600 };
  const full = { width: 1000, height: 800 };
  const docked = { width: 1000, height: 500 }; // a 300 px dock under it
  const fitted = fitView(box, full.width, full.height, 40, 1);

  it('pans or refits a lab that was whole in view so that it still is', () => {
    expect(inView(box, fitted, docked.width, docked.height)).toBe(false); // the dock would hide its bottom
    const v = keepInView(box, fitted, full, docked, 40, 1)!;
    expect(v).not.toBeNull();
    expect(inView(box, v, docked.width, docked.height)).toBe(true);
    expect(v.zoom).toBeLessThanOrEqual(fitted.zoom);
  });

  it('only pans when the lab still fits at its zoom', () => {
    const small = { x: 0, y: 0, width: 200, height: 100 };
    const low = { x: 100, y: 600, zoom: 1 }; // a lab drawn low on the canvas
    const v = keepInView(small, low, full, docked, 40, 1)!;
    expect(v.zoom).toBe(1);
    expect(v.x).toBe(100);
    expect(inView(small, v, docked.width, docked.height)).toBe(true);
    expect(v.y + 100).toBeLessThanOrEqual(docked.height - 40 + 0.5); // with its pad above the dock
  });

  it('leaves the view alone when the user zoomed in on a part, or nothing is hidden', () => {
    expect(keepInView(box, { x: 0, y: 0, zoom: 3 }, full, docked, 40, 1)).toBeNull();
    expect(keepInView(box, fitted, full, { width: 1000, height: 900 }, 40, 1)).toBeNull();
  });
});
