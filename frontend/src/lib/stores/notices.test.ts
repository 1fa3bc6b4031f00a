import { afterEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import { AppError } from '../errors';
import { dismiss, failed, keep, notices, notify, whenGone } from './notices';

describe('failed', () => {
  const forget: (() => void)[] = [];
  afterEach(() => forget.splice(0).forEach((f) => f()));

  it('shows the failure, and reloads what registered when the thing is gone', () => {
    const reloads: string[] = [];
    forget.push(whenGone(() => reloads.push('projects')), whenGone(() => reloads.push('topology')));
    failed('Could not move the node', new AppError('Node n1 not found', 404, 'not_found'));
    expect(get(notices).at(-1)).toMatchObject({ kind: 'error', message: 'Could not move the node: Node n1 not found' });
    expect(reloads).toEqual(['projects', 'topology']);
    failed('Could not start the node', new AppError('It is running', 409, 'conflict'));
    expect(reloads).toEqual(['projects', 'topology']);
  });

  it('forgets a reload once told to', () => {
    const reload = vi.fn();
    whenGone(reload)();
    failed('Could not delete the link', new AppError('Link l1 not found', 404, 'not_found'));
    expect(reload).not.toHaveBeenCalled();
  });
});

describe('notices with a detail', () => {
  it('keep the technical detail apart from the sentence, and stay while it is open', () => {
    vi.useFakeTimers();
    notices.set([]);
    try {
      failed('Could not load the projects', new AppError('Cannot reach nodedesk. Check that it is still running, then try again.', 0, 'unreachable', null, 'Failed to fetch'));
      const n = get(notices).at(-1)!;
      expect(n).toMatchObject({ kind: 'error', message: 'Could not load the projects: Cannot reach nodedesk. Check that it is still running, then try again.', detail: 'Failed to fetch' });
      const id = notify('info', '"VM1" runs slowly', 2500, undefined, 'no /dev/kvm');
      keep(id);
      vi.advanceTimersByTime(60_000);
      expect(get(notices).map((x) => x.id)).toEqual([id]); // the kept one only
      dismiss(id);
      expect(get(notices)).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
  });
});
