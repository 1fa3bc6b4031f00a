import { describe, expect, it } from 'vitest';
import { fieldForError } from './fielderror';

const general = ['name', 'console', 'console_type', 'symbol', 'label', 'x', 'y', 'z'];

describe('server message to field', () => {
  // The messages below are nodedesk's own words.
  it.each([
    ['Console port 80 cannot be used: choose a port from 1024 to 65535 (new nodes get one from 5000–10000)', 'console'],
    ['Console port 5000 is already used by node PC1; choose another port or leave console out', 'console'],
    ['Invalid request body: console: got string, want null or integer', 'console'],
    ['A vpcs node cannot have console type vnc; allowed: telnet', 'console_type'],
    ['Invalid request body: name: minLength: got 0, want 1', 'name'],
    ['Another node of this project is already named Switch1; choose another name', 'name'],
    ['A node name cannot be empty or only spaces', 'name'],
    ['Invalid request body: symbol: minLength: got 0, want 1', 'symbol'],
    ['Label rotation 999 is out of range; use -359 to 360 degrees', 'label'],
    ['Invalid request body: x: got string, want integer', 'x'],
  ])('%s → %s', (msg, field) => {
    expect(fieldForError(msg, general).field).toBe(field);
  });

  it('maps switch port messages to the port table, with the row when given', () => {
    const f = [...general, 'ports_mapping'];
    expect(fieldForError('Invalid properties for a ethernet_switch node: ports_mapping.3.vlan: maximum: got 5,000, want 4,094', f)).toEqual({ field: 'ports_mapping', row: 3 });
    expect(fieldForError('Port number 0 appears twice in ports_mapping; each port needs its own number', f).field).toBe('ports_mapping');
    expect(fieldForError('Port Ethernet1 has VLAN 0; use a VLAN from 1 to 4094', f).field).toBe('ports_mapping');
    expect(fieldForError('Port 0/2 of Switch1 has a link attached; delete link x before removing the port', f).field).toBe('ports_mapping');
  });

  it('maps Frame Relay messages to the mappings table', () => {
    const f = [...general, 'mappings'];
    expect(fieldForError('Frame Relay mapping "3:x" is not of the form port:DLCI (for example "1:101": "2:201")', f).field).toBe('mappings');
    expect(fieldForError('DLCI 2000 in Frame Relay mapping "1:2000" is out of range; use 0 to 1023', f).field).toBe('mappings');
    expect(fieldForError('Port 0/2 of FRSW1 has a link attached; delete link x before removing the port', f).field).toBe('mappings');
  });

  it('answers null (top of the panel) for messages about no field of the form', () => {
    expect(fieldForError('Node ID 123 doesn\'t exist', general)).toEqual({ field: null, row: null });
    expect(fieldForError('PC1 must be stopped to change its console type', ['name']).field).toBeNull();
    expect(fieldForError('Internal error; the details are in nodedesk\'s log', general).field).toBeNull();
  });

  it('prefers what the message names first', () => {
    expect(fieldForError('Node Switch1 has no console (console type null), so it cannot take console port 5001; set console_type first', general).field).toBe('console');
  });
});
