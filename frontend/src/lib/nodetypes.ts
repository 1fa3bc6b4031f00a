// What differs between node types in the UI: their name, which console
// types they accept, and which property editor they get.

import { assertNever } from './assert';
import type { ConsoleType, NodeType } from './types';

/** The property editor a node type gets below the general fields. */
export type Editor = 'vpcs' | 'switch' | 'hub' | 'frame_relay' | 'cloud' | 'none';

/** The drawing of a node type on the canvas and in the palette. */
export type IconKind = 'pc' | 'switch' | 'hub' | 'frame_relay' | 'atm' | 'cloud' | 'nat' | 'router' | 'vm' | 'container';

/** The console choices of a type; 'none' stands for null. */
export type ConsoleChoice = 'telnet' | 'vnc' | 'http' | 'none';

export interface TypeInfo {
  /** Human name of the type. */
  title: string;
  editor: Editor;
  /** Allowed console choices; a single 'none' means no console at all. */
  consoles: readonly ConsoleChoice[];
  /** Status follows a process (start/stop mean something). */
  runnable: boolean;
  icon: IconKind;
}

const ANY_CONSOLE: readonly ConsoleChoice[] = ['telnet', 'vnc', 'http', 'none'];
const NO_CONSOLE: readonly ConsoleChoice[] = ['none'];

export function typeInfo(t: NodeType): TypeInfo {
  switch (t) {
    case 'vpcs': return { title: 'VPCS host', editor: 'vpcs', consoles: ['telnet'], runnable: true, icon: 'pc' };
    case 'ethernet_switch': return { title: 'Ethernet switch', editor: 'switch', consoles: NO_CONSOLE, runnable: false, icon: 'switch' };
    case 'ethernet_hub': return { title: 'Ethernet hub', editor: 'hub', consoles: NO_CONSOLE, runnable: false, icon: 'hub' };
    case 'frame_relay_switch': return { title: 'Frame Relay switch', editor: 'frame_relay', consoles: NO_CONSOLE, runnable: false, icon: 'frame_relay' };
    case 'cloud': return { title: 'Cloud', editor: 'cloud', consoles: NO_CONSOLE, runnable: false, icon: 'cloud' };
    case 'nat': return { title: 'NAT', editor: 'none', consoles: NO_CONSOLE, runnable: false, icon: 'nat' };
    case 'atm_switch': return { title: 'ATM switch', editor: 'none', consoles: NO_CONSOLE, runnable: false, icon: 'atm' };
    case 'qemu': return { title: 'QEMU VM', editor: 'none', consoles: ANY_CONSOLE, runnable: true, icon: 'vm' };
    case 'docker': return { title: 'Docker container', editor: 'none', consoles: ANY_CONSOLE, runnable: true, icon: 'container' };
    case 'dynamips': return { title: 'Dynamips router', editor: 'none', consoles: ANY_CONSOLE, runnable: true, icon: 'router' };
    case 'iou': return { title: 'IOU device', editor: 'none', consoles: ANY_CONSOLE, runnable: true, icon: 'router' };
    case 'virtualbox': return { title: 'VirtualBox VM', editor: 'none', consoles: ANY_CONSOLE, runnable: true, icon: 'vm' };
    case 'vmware': return { title: 'VMware VM', editor: 'none', consoles: ANY_CONSOLE, runnable: true, icon: 'vm' };
    default: return assertNever(t, 'node type');
  }
}

export function consoleChoice(c: ConsoleType): ConsoleChoice {
  return c === null ? 'none' : c;
}

/** The wire value of a console choice: 'none' is sent as null. */
export function consoleValue(c: ConsoleChoice): ConsoleType {
  return c === 'none' ? null : c;
}

/** Whether a node of this type can have a console at all. */
export function hasConsole(t: NodeType): boolean {
  return typeInfo(t).consoles.some((c) => c !== 'none');
}
