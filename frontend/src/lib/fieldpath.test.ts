import { describe, expect, it } from 'vitest';
import { errorPlace, fieldPlace } from './fieldpath';

const general = ['name', 'console', 'console_type', 'symbol', 'label', 'x', 'y', 'z'];

describe('server error field to form field', () => {
  // The paths nodedesk gives with the errors the old message matching knew.
  it.each([
    ['console', 'console'], // Console port 80 cannot be used / is already used / got string
    ['console_type', 'console_type'], // A vpcs node cannot have console type vnc
    ['name', 'name'], // minLength, already named, empty
    ['symbol', 'symbol'],
    ['label.rotation', 'label'], // Label rotation 999 is out of range
    ['x', 'x'],
  ])('%s → %s', (path, field) => {
    expect(errorPlace(path, general)?.field).toBe(field);
  });

  it('maps switch port paths to the port table, with the row and the key', () => {
    const f = [...general, 'ports_mapping'];
    expect(errorPlace('properties.ports_mapping.3.vlan', f)).toEqual({ field: 'ports_mapping', row: 3, key: 'vlan' });
    expect(errorPlace('properties.ports_mapping.1.port_number', f)).toEqual({ field: 'ports_mapping', row: 1, key: 'port_number' });
    expect(errorPlace('properties.ports_mapping', f)).toEqual({ field: 'ports_mapping', row: null, key: null });
  });

  it('maps Frame Relay paths to the mappings editor', () => {
    const f = [...general, 'mappings'];
    expect(errorPlace('properties.mappings', f)).toEqual({ field: 'mappings', row: null, key: null });
  });

  it('answers null (top of the panel) for no field, or a field the form does not show', () => {
    expect(errorPlace(undefined, general)).toBeNull();
    expect(errorPlace(null, general)).toBeNull();
    expect(errorPlace('', general)).toBeNull();
    expect(errorPlace('properties', general)).toBeNull();
    expect(errorPlace('port_segment_size', general)).toBeNull();
    expect(errorPlace('properties.ports_mapping.0.vlan', general)).toBeNull();
  });

  it('reads compute-view paths (no properties. prefix) the same way', () => {
    expect(fieldPlace('ports_mapping.2.ethertype')).toEqual({ field: 'ports_mapping', row: 2, key: 'ethertype' });
    expect(fieldPlace('startup_script')).toEqual({ field: 'startup_script', row: null, key: null });
  });
});
