import { beforeEach, describe, expect, it, vi } from 'vitest';

const createNode = vi.fn();
const duplicateNode = vi.fn();
vi.mock('../api', async (orig) => ({
  ...(await orig<typeof import('../api')>()),
  createNode: (...a: unknown[]) => createNode(...a),
  duplicateNode: (...a: unknown[]) => duplicateNode(...a),
}));

const { pasteClip } = await import('./clipboard');
const { setNodes } = await import('./nodes');
const { notices } = await import('./notices');
const { vpcs } = await import('../testdata');

describe('pasting nodes', () => {
  beforeEach(() => {
    createNode.mockReset();
    duplicateNode.mockReset();
    notices.set([]);
  });

  it('asks the server to duplicate an original of this project (its files and MAC are the server\'s to copy and renew)', async () => {
    const pc = vpcs('a', { project_id: 'p', x: 10, y: 20, z: 3 });
    setNodes([pc]);
    duplicateNode.mockResolvedValue(vpcs('copy', { project_id: 'p' }));
    await pasteClip('p', { nodes: [pc], links: [], drawings: [] }, 40, 'duplicate');
    expect(duplicateNode).toHaveBeenCalledWith('p', 'a', { x: 50, y: 60, z: 3 });
    expect(createNode).not.toHaveBeenCalled();
  });

  it('makes anew a node copied from another project, or deleted since', async () => {
    const elsewhere = vpcs('a', { project_id: 'other' });
    const gone = vpcs('b', { project_id: 'p' });
    setNodes([]);
    createNode.mockResolvedValue(vpcs('copy', { project_id: 'p' }));
    await pasteClip('p', { nodes: [elsewhere, gone], links: [], drawings: [] }, 40, 'paste');
    expect(createNode).toHaveBeenCalledTimes(2);
    expect(duplicateNode).not.toHaveBeenCalled();
  });
});
