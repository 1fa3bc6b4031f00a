// What the server says differs between node types — which console types
// a type accepts, whether start and stop mean something — as GET
// /v2/node_types answers it (stores/nodetypes.ts). The page's own view of
// each type, its name and editor, is its entry in src/nodekinds/.

import type { ConsoleType, NodeTypeInfo } from './types';

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

/** consoleDefault is the console choice the server gives a new node of a
 * type (the first of its console types), for a form's "default" option. */
export function consoleDefault(info: NodeTypeInfo | undefined): ConsoleChoice | null {
  const first = info?.console_types[0];
  return first === undefined ? null : consoleChoice(first);
}
