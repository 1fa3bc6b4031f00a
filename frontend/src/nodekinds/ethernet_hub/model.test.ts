import { describe, expect, it } from 'vitest';
import { addHubPort } from './model';

describe('hub ports', () => {
  it('adds a port at the lowest free number', () => {
    expect(addHubPort([{ name: 'Ethernet0', port_number: 0 }]).at(-1)).toEqual({ name: 'Ethernet1', port_number: 1 });
  });
});
