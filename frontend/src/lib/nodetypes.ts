// What differs between node types in the UI. Presentation — a type's
// name and property editor — is the page's own (a node's picture is its
// symbol's, lib/symbols.ts); what the server decides — which console
// types a type accepts, whether start and stop mean something — comes
// from GET /v2/node_types (stores/nodetypes.ts).

import { assertNever } from './assert';
import type { ConsoleType, NodeType, NodeTypeInfo } from './types';

/** The property editor a node type gets below the general fields. */
export type Editor = 'vpcs' | 'switch' | 'hub' | 'frame_relay' | 'cloud' | 'nat' | 'qemu' | 'docker' | 'dynamips' | 'none';

/** How a node type is shown. */
export interface TypeLook {
  /** Human name of the type. */
  title: string;
  editor: Editor;
}

/** typeInfo is how a node type is shown. */
export function typeInfo(t: NodeType): TypeLook {
  switch (t) {
    case 'vpcs': return { title: 'VPCS host', editor: 'vpcs' };
    case 'ethernet_switch': return { title: 'Ethernet switch', editor: 'switch' };
    case 'ethernet_hub': return { title: 'Ethernet hub', editor: 'hub' };
    case 'frame_relay_switch': return { title: 'Frame Relay switch', editor: 'frame_relay' };
    case 'cloud': return { title: 'Cloud', editor: 'cloud' };
    case 'nat': return { title: 'NAT', editor: 'nat' };
    case 'atm_switch': return { title: 'ATM switch', editor: 'none' };
    case 'qemu': return { title: 'QEMU VM', editor: 'qemu' };
    case 'docker': return { title: 'Docker container', editor: 'docker' };
    case 'dynamips': return { title: 'Dynamips router', editor: 'dynamips' };
    case 'iou': return { title: 'IOU device', editor: 'none' };
    case 'traceng': return { title: 'TraceNG host', editor: 'none' };
    case 'virtualbox': return { title: 'VirtualBox VM', editor: 'none' };
    case 'vmware': return { title: 'VMware VM', editor: 'none' };
    default: return assertNever(t, 'node type');
  }
}

/** A console choice of the form; 'none' stands for null. */
export type ConsoleChoice = Exclude<ConsoleType, null> | 'none';

export function consoleChoice(c: ConsoleType): ConsoleChoice {
  return c === null ? 'none' : c;
}

/** The wire value of a console choice: 'none' is sent as null. */
export function consoleValue(c: ConsoleChoice): ConsoleType {
  return c === 'none' ? null : c;
}

/** consoleChoices are the console types the server accepts for a type, in
 * its order (the first is the default); unknown (not loaded) is none. */
export function consoleChoices(info: NodeTypeInfo | undefined): ConsoleChoice[] {
  return info ? info.console_types.map(consoleChoice) : [];
}

/** hasConsole says whether the server gives a type any console. */
export function hasConsole(info: NodeTypeInfo | undefined): boolean {
  return consoleChoices(info).some((c) => c !== 'none');
}

/** runnable says whether start, stop and suspend mean something for a
 * type: its status follows a process that nodedesk runs (not for the
 * emulators it keeps but does not run). Unknown (not loaded) is undefined. */
export function runnable(info: NodeTypeInfo | undefined): boolean | undefined {
  return info ? info.lifecycle === 'process' && info.runs : undefined;
}
