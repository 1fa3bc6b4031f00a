import { describe, expect, it } from 'vitest';
import { formatSize, wholeNumber } from './numbers';

describe('numbers', () => {
  it('sizes for people', () => {
    expect([formatSize(512), formatSize(2048), formatSize(5.5 * 1024 * 1024), formatSize(300 * 1024 ** 3)]).toEqual(['512 B', '2.0 KB', '5.5 MB', '300 GB']);
  });

  it('reads a whole number as typed: empty is undefined, anything else not whole is null', () => {
    expect([wholeNumber(''), wholeNumber(' 12 '), wholeNumber('1e3'), wholeNumber('-1')]).toEqual([undefined, 12, null, -1]);
  });
});
