import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';

const updateNode = vi.fn();
vi.mock('../api', async (orig) => ({ ...(await orig<typeof import('../api')>()), updateNode: (...a: unknown[]) => updateNode(...a) }));

const { nudge, overrides, commitMoves } = await import('./positions');
const { nodes, setNodes } = await import('./nodes');
const { notices } = await import('./notices');
const { AppError } = await import('../api');
const { vpcs } = await import('../testdata');

describe('moving nodes', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    updateNode.mockReset();
    notices.set([]);
    setNodes([vpcs('a', { x: 100, y: 100 }), vpcs('b', { x: 0, y: 0 })]);
  });
  afterEach(() => vi.useRealTimers());

  it('draws nudges at once and saves a burst of them with one PUT per node', async () => {
    updateNode.mockImplementation(async (_p: string, id: string, body: { x: number; y: number }) => ({ ...get(nodes).get(id)!, ...body }));
    nudge('p', ['a'], 10, 0);
    nudge('p', ['a'], 10, 0);
    nudge('p', ['a'], 0, 1);
    expect(get(overrides).get('a')).toEqual({ x: 120, y: 101 });
    expect(updateNode).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(300);
    expect(updateNode).toHaveBeenCalledTimes(1);
    expect(updateNode).toHaveBeenCalledWith('p', 'a', { x: 120, y: 101 });
    expect(get(nodes).get('a')).toMatchObject({ x: 120, y: 101 });
    expect(get(overrides).size).toBe(0);
  });

  it('snaps back and says why when the server refuses a move', async () => {
    updateNode.mockRejectedValue(new AppError('Node ID a doesn\'t exist', 404, 'not_found'));
    await commitMoves('p', new Map([['a', { x: 5.4, y: 6.6 }]]));
    expect(updateNode).toHaveBeenCalledWith('p', 'a', { x: 5, y: 7 });
    expect(get(overrides).size).toBe(0);
    expect(get(nodes).get('a')).toMatchObject({ x: 100, y: 100 });
    expect(get(notices).map((n) => n.message)).toEqual(["Could not move a node: Node ID a doesn't exist"]);
  });
});
