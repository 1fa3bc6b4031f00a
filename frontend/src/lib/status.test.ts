import { describe, expect, it } from 'vitest';
import { statusColor, statusLabel, statusTone } from './status';
import type { NodeStatus } from './types';

describe('status colour', () => {
  it('is green when started, amber when suspended, grey when stopped', () => {
    expect(statusTone('started')).toBe('green');
    expect(statusTone('suspended')).toBe('amber');
    expect(statusTone('stopped')).toBe('grey');
    expect(statusColor('started')).toBe('var(--status-green)');
    expect(statusLabel('suspended')).toBe('Suspended');
  });

  it('throws on a status the UI does not know', () => {
    expect(() => statusTone('exploded' as NodeStatus)).toThrow(/Unexpected node status/);
  });
});
