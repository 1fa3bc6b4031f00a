// Wire types of the nodedesk REST API (api/openapi.json). The window's
// bindings answer with exactly the same shapes.

export type UUID = string;

export type NodeType =
  | 'cloud'
  | 'nat'
  | 'ethernet_hub'
  | 'ethernet_switch'
  | 'frame_relay_switch'
  | 'atm_switch'
  | 'docker'
  | 'dynamips'
  | 'vpcs'
  | 'virtualbox'
  | 'vmware'
  | 'iou'
  | 'qemu';

export const NODE_TYPES: readonly NodeType[] = [
  'cloud', 'nat', 'ethernet_hub', 'ethernet_switch', 'frame_relay_switch', 'atm_switch',
  'docker', 'dynamips', 'vpcs', 'virtualbox', 'vmware', 'iou', 'qemu',
];

export type NodeStatus = 'stopped' | 'started' | 'suspended';
export type ConsoleType = 'vnc' | 'telnet' | 'http' | null;
export type NodeAction = 'start' | 'stop' | 'suspend' | 'reload';
export type ProjectStatus = 'opened' | 'closed';
export type LinkType = 'ethernet' | 'serial';

export interface Variable { name: string; value?: string }
export interface Supplier { logo: string; url?: string }

export interface Project {
  project_id: UUID;
  name: string;
  status: ProjectStatus;
  filename: string;
  path: string;
  auto_close: boolean;
  auto_open: boolean;
  auto_start: boolean;
  drawing_grid_size: number;
  grid_size: number;
  scene_height: number;
  scene_width: number;
  show_grid: boolean;
  show_interface_labels: boolean;
  show_layers: boolean;
  snap_to_grid: boolean;
  supplier: Supplier | null;
  variables: Variable[] | null;
  zoom: number;
}

export type ProjectCreate = Partial<Omit<Project, 'project_id' | 'name'>> & { name: string; project_id?: UUID | null };
export type ProjectUpdate = Partial<Omit<Project, 'project_id'>>;

export interface Label {
  text: string;
  style?: string | null;
  x?: number | null;
  y?: number;
  rotation?: number;
}

export interface Port {
  name: string;
  short_name: string;
  adapter_number: number;
  port_number: number;
  link_type: LinkType;
  data_link_types: Record<string, string>;
  adapter_type?: string;
  mac_address?: string;
}

export interface CustomAdapter {
  adapter_number: number;
  port_name?: string;
  adapter_type?: string;
  mac_address?: string;
}

export type SwitchPortType = 'access' | 'dot1q' | 'qinq';
export type Ethertype = '0x8100' | '0x88A8' | '0x9100' | '0x9200' | null;
export const ETHERTYPES: readonly Ethertype[] = [null, '0x8100', '0x88A8', '0x9100', '0x9200'];
export const SWITCH_PORT_TYPES: readonly SwitchPortType[] = ['access', 'dot1q', 'qinq'];

export interface EthernetSwitchPort {
  name: string;
  port_number: number;
  type: SwitchPortType;
  vlan?: number;
  ethertype?: Ethertype | '';
}

export interface EthernetHubPort { name: string; port_number: number }

export interface HostInterface { name: string; special: boolean; type: 'ethernet' | 'tap' }

export type CloudPort =
  | { name: string; port_number: number; type: 'ethernet' | 'tap'; interface: string }
  | { name: string; port_number: number; type: 'udp'; lport: number; rhost: string; rport: number };

/** Frame Relay circuits: "port:dlci" → "port:dlci". */
export type FrameRelayMappings = Record<string, string>;

export interface VPCSProperties { startup_script?: string | null; startup_script_path?: string | null }
export interface EthernetSwitchProperties { ports_mapping?: EthernetSwitchPort[] }
export interface EthernetHubProperties { ports_mapping?: EthernetHubPort[] }
export interface FrameRelaySwitchProperties { mappings?: FrameRelayMappings }
export interface CloudProperties {
  interfaces?: HostInterface[];
  ports_mapping?: CloudPort[];
  remote_console_host?: string;
  remote_console_port?: number | null;
  remote_console_type?: 'telnet' | 'vnc' | 'spice' | 'http' | 'https' | 'none';
  remote_console_http_path?: string;
}

export type NodeProperties =
  & VPCSProperties
  & EthernetSwitchProperties
  & FrameRelaySwitchProperties
  & Omit<CloudProperties, 'ports_mapping'>
  & { ports_mapping?: EthernetSwitchPort[] | EthernetHubPort[] | CloudPort[] }
  & Record<string, unknown>;

export interface Node {
  node_id: UUID;
  project_id: UUID;
  name: string;
  node_type: NodeType;
  status: NodeStatus;
  compute_id: string;
  console: number | null;
  console_auto_start: boolean;
  console_host: string;
  console_type: ConsoleType;
  command_line: string | null;
  custom_adapters: CustomAdapter[];
  first_port_name: string | null;
  width: number;
  height: number;
  label: Label;
  locked: boolean;
  node_directory: string | null;
  port_name_format: string;
  port_segment_size: number;
  ports: Port[];
  properties: NodeProperties;
  symbol: string | null;
  template_id: UUID | null;
  x: number;
  y: number;
  z: number;
}

export type NodeUpdate = Partial<Pick<Node,
  'name' | 'console' | 'console_auto_start' | 'console_type' | 'custom_adapters' | 'first_port_name' |
  'label' | 'locked' | 'port_name_format' | 'port_segment_size' | 'symbol' | 'x' | 'y' | 'z'>> & {
  properties?: Record<string, unknown>;
};

export interface LinkEnd {
  node_id: UUID;
  adapter_number: number;
  port_number: number;
  label?: Label;
}

export interface Link {
  link_id: UUID;
  project_id: UUID;
  link_type: LinkType;
  nodes: LinkEnd[];
  capture_compute_id: string | null;
  capture_file_name: string | null;
  capture_file_path: string | null;
  capturing: boolean;
  filters: Record<string, unknown>;
  link_style: Record<string, unknown>;
  suspend: boolean;
}

export interface LinkCreate {
  nodes: [LinkEnd, LinkEnd];
  suspend?: boolean;
  filters?: Record<string, unknown>;
  link_style?: Record<string, unknown>;
}

export type LinkUpdate = Partial<Pick<Link, 'suspend' | 'filters' | 'link_style'>> & { nodes?: LinkEnd[] };

export type TemplateCategory = 'router' | 'switch' | 'guest' | 'firewall';

export interface Template {
  template_id: UUID;
  name: string;
  template_type: NodeType;
  category: TemplateCategory;
  compute_id: string | null;
  default_name_format: string;
  symbol: string;
  builtin: boolean;
  console_type?: ConsoleType;
  properties?: Record<string, unknown>;
  [extra: string]: unknown;
}

export interface TemplateNodeCreate { x: number; y: number; name?: string | null; compute_id?: string | null }
export interface NodeDuplicate { x: number; y: number; z?: number }

/** One message of a notification stream, as the app sees it. */
export type LiveEvent =
  | { action: 'node.created' | 'node.updated' | 'node.deleted'; event: Node }
  | { action: 'link.created' | 'link.updated' | 'link.deleted'; event: Link }
  | { action: 'project.created' | 'project.updated' | 'project.deleted' | 'project.opened' | 'project.closed'; event: Project }
  /** Events may have been missed (a reconnect, or a lagging subscriber): reload. */
  | { action: 'resync' };

export type LiveAction = LiveEvent['action'];

/** Whether a subscription is delivering events. */
export type LiveState = 'live' | 'reconnecting';
