// Sample wire objects for unit tests, as nodedesk answers them.

import type { Compute, Link, Node, Port, Project } from './types';

const eth = (n: number, name = `Ethernet${n}`): Port => ({
  name, short_name: `e${n}`, adapter_number: 0, port_number: n, link_type: 'ethernet', data_link_types: { Ethernet: 'DLT_EN10MB' },
});

function base(id: string, over: Partial<Node>): Node {
  return {
    node_id: id, project_id: 'p1', name: id, node_type: 'vpcs', status: 'stopped', compute_id: 'local',
    console: null, console_auto_start: false, console_host: '127.0.0.1', console_type: null, command_line: null,
    custom_adapters: [], first_port_name: null, width: 65, height: 59,
    label: { text: id, style: null, x: null, y: -40, rotation: 0 }, locked: false, node_directory: null,
    port_name_format: 'Ethernet{0}', port_segment_size: 0, ports: [], properties: {}, symbol: null, template_id: null,
    x: 0, y: 0, z: 1, compute_connected: true, ...over,
  };
}

export const vpcs = (id = 'pc1', over: Partial<Node> = {}): Node =>
  base(id, {
    name: 'PC1', node_type: 'vpcs', console: 5000, console_type: 'telnet', ports: [eth(0)],
    properties: { startup_script: null, startup_script_path: null }, symbol: ':/symbols/vpcs_guest.svg', ...over,
  });

export const ethSwitch = (id = 'sw1', over: Partial<Node> = {}): Node =>
  base(id, {
    name: 'Switch1', node_type: 'ethernet_switch', status: 'started', ports: [0, 1, 2, 3].map((n) => eth(n)),
    properties: { ports_mapping: [0, 1, 2, 3].map((n) => ({ name: `Ethernet${n}`, port_number: n, type: 'access' as const, vlan: 1 })) },
    symbol: ':/symbols/ethernet_switch.svg', x: 200, y: 100, ...over,
  });

export const frSwitch = (id = 'fr1', over: Partial<Node> = {}): Node =>
  base(id, {
    name: 'FRSW1', node_type: 'frame_relay_switch', status: 'started',
    ports: [1, 2].map((n) => ({ name: `${n}`, short_name: `${n}`, adapter_number: 0, port_number: n, link_type: 'serial' as const, data_link_types: { 'Frame Relay': 'DLT_FRELAY' } })),
    properties: { mappings: { '1:101': '2:201' } }, ...over,
  });

export const link = (id: string, a: [string, number], b: [string, number]): Link => ({
  link_id: id, project_id: 'p1', link_type: 'ethernet',
  nodes: [
    { node_id: a[0], adapter_number: 0, port_number: a[1] },
    { node_id: b[0], adapter_number: 0, port_number: b[1] },
  ],
  capture_compute_id: null, capture_file_name: null, capture_file_path: null, capturing: false,
  filters: {}, link_style: {}, suspend: false, compute_connected: true,
});

export const project = (id = 'p1', over: Partial<Project> = {}): Project => ({
  project_id: id, name: 'lab', status: 'opened', filename: 'lab.gns3', path: '/tmp/lab', auto_close: true, auto_open: false,
  auto_start: false, drawing_grid_size: 25, grid_size: 75, scene_height: 1000, scene_width: 2000, show_grid: false,
  show_interface_labels: false, show_layers: false, snap_to_grid: false, supplier: null, variables: null, zoom: 100, ...over,
});

export const compute = (id = 'local', over: Partial<Compute> = {}): Compute => ({
  compute_id: id, name: id, protocol: 'http', host: '127.0.0.1', port: 3080, user: null, connected: true,
  cpu_usage_percent: null, memory_usage_percent: null, last_error: null, capabilities: {}, ...over,
});
