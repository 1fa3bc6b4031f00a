/** assertNever makes a switch over a string-literal union exhaustive: it
 * does not compile when a case is missing, and throws if reached anyway. */
export function assertNever(x: never, what = 'value'): never {
  throw new Error(`Unexpected ${what}: ${JSON.stringify(x)}`);
}
