// The page's import rules, read from the sources: the stores and the
// node-type registry's entries (nodekinds/*/index.ts) import one another
// without a cycle, notices imports no store (any store may report through
// it), a type's views never import their own entry (they get its stores
// by prop), and the components reach nodedesk only through the stores:
// no component imports a value of the modules that talk to the server
// (api, transport, live, consolelink; the window's generated bindings).
// An `import type` is fine: it is gone once compiled.

import { describe, expect, it } from 'vitest';
import ts from 'typescript';

type Sources = Record<string, string>;

// The sources as text (Vite reads them when the test is loaded).
const stores: Sources = import.meta.glob(['./lib/stores/*.ts', '!./lib/stores/*.test.ts'], { query: '?raw', import: 'default', eager: true });
const entries: Sources = import.meta.glob('./nodekinds/*/index.ts', { query: '?raw', import: 'default', eager: true });
const components: Sources = import.meta.glob(['./components/**/*.svelte', './nodekinds/**/*.svelte', './App.svelte'], { query: '?raw', import: 'default', eager: true });

/** The modules that talk to nodedesk, by their path from src. */
const SERVER_DOORS = ['lib/api.ts', 'lib/transport.ts', 'lib/live.ts', 'lib/consolelink.ts'];
const isServerDoor = (path: string) => SERVER_DOORS.includes(path) || path.startsWith('../wailsjs/');

/** One import of a source file: the path imported, resolved from src for
 * a relative one (as written otherwise), and whether it is type-only. */
interface Import {
  path: string;
  typeOnly: boolean;
}

/** scriptOf is the TypeScript of a file: a .svelte file's <script> blocks. */
function scriptOf(file: string, text: string): string {
  if (!file.endsWith('.svelte')) return text;
  return [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n');
}

/** resolve is spec's path from src, for spec imported by file (a path
 * from src, "./x/y.ts"); a bare module's name is kept as it is. */
function resolve(file: string, spec: string, known: ReadonlySet<string>): string {
  if (!spec.startsWith('.')) return spec;
  const parts = file.replace(/^\.\//, '').split('/').slice(0, -1);
  for (const p of spec.split('/')) {
    if (p === '..') {
      if (parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
      else parts.push('..');
    } else if (p !== '.') parts.push(p);
  }
  const path = parts.join('/');
  return known.has(`${path}.ts`) || (!known.has(path) && !/\.\w+$/.test(path)) ? `${path}.ts` : path;
}

/** importsOf lists what a source file imports: import and export … from
 * declarations, and import() calls. Only `import type` and `export type`
 * are type-only: `import { type X }` still loads the module. */
function importsOf(file: string, text: string, known: ReadonlySet<string> = new Set()): Import[] {
  const source = ts.createSourceFile(file, scriptOf(file, text), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: Import[] = [];
  const add = (spec: ts.Expression | undefined, typeOnly: boolean) => {
    if (spec && ts.isStringLiteralLike(spec)) found.push({ path: resolve(file, spec.text, known), typeOnly });
  };
  const visit = (n: ts.Node): void => {
    if (ts.isImportDeclaration(n)) add(n.moduleSpecifier, n.importClause?.isTypeOnly ?? false);
    else if (ts.isExportDeclaration(n)) add(n.moduleSpecifier, n.isTypeOnly);
    else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) add(n.arguments[0], false);
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

/** cycleIn finds a cycle in a graph (each node's successors), as the path
 * that closes it ("a", "b", "a"), or null when there is none. */
function cycleIn(graph: ReadonlyMap<string, readonly string[]>): string[] | null {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const walk = (n: string): string[] | null => {
    if (state.get(n) === 'done') return null;
    if (state.get(n) === 'open') return [...path.slice(path.indexOf(n)), n];
    state.set(n, 'open');
    path.push(n);
    for (const m of graph.get(n) ?? []) {
      const c = walk(m);
      if (c) return c;
    }
    path.pop();
    state.set(n, 'done');
    return null;
  };
  for (const n of [...graph.keys()].sort()) {
    const c = walk(n);
    if (c) return c;
  }
  return null;
}

/** A store's or an entry's name in the graph: "topology", "nodekinds/qemu". */
const name = (path: string) => path.replace(/^\.?\/?lib\/stores\//, '').replace(/^(\.\/)?(nodekinds\/[^/]+)\/index\.ts$/, '$2').replace(/\.ts$/, '');
const fromSrc = (file: string) => file.replace(/^\.\//, '');

/** The stores' and the entries' imports of one another (type-only ones
 * too). */
let graph: Map<string, string[]> | null = null;
function storeGraph(): Map<string, string[]> {
  if (graph) return graph;
  const sources = { ...stores, ...entries };
  const known = new Set(Object.keys(sources).map(fromSrc));
  graph = new Map<string, string[]>();
  for (const [file, text] of Object.entries(sources)) {
    const deps = importsOf(file, text, known).map((i) => i.path).filter((p) => known.has(p));
    graph.set(name(fromSrc(file)), [...new Set(deps.map(name))]);
  }
  return graph;
}

describe('the import rules of the page', () => {
  it('reads the sources it judges', () => {
    expect(Object.keys(stores).length).toBeGreaterThan(10);
    expect(Object.keys(components).length).toBeGreaterThan(30);
    expect(storeGraph().get('topology')).toEqual(expect.arrayContaining(['drawings', 'history', 'notices']));
    expect(Object.keys(entries).length).toBeGreaterThan(10);
    expect([...storeGraph().values()].flat()).toContain('images');
  });

  it('the stores and the entries import one another without a cycle', () => {
    expect(cycleIn(storeGraph())?.join(' → ') ?? null).toBeNull();
  });

  it('notices is a leaf: it imports no store', () => {
    expect(storeGraph().get('notices')).toEqual([]);
  });

  it("a type's views do not import its entry", () => {
    const known = new Set([...Object.keys(entries), ...Object.keys(components)].map(fromSrc));
    const offending = Object.entries(components)
      .filter(([file]) => file.startsWith('./nodekinds/'))
      .flatMap(([file, text]) => {
        const own = fromSrc(file).replace(/[^/]+$/, 'index.ts');
        return importsOf(file, text, known).filter((i) => i.path === own).map((i) => `${fromSrc(file)} imports ${i.path}`);
      });
    expect(offending).toEqual([]);
  });

  it('components reach nodedesk through the stores only', () => {
    const known = new Set([...Object.keys(stores), ...Object.keys(components)].map(fromSrc));
    const offending = Object.entries(components).flatMap(([file, text]) =>
      importsOf(file, text, known)
        .filter((i) => !i.typeOnly && isServerDoor(i.path))
        .map((i) => `${fromSrc(file)} imports ${i.path}`),
    );
    expect(offending).toEqual([]);
  });
});

describe('the rule checker', () => {
  it('tells type-only imports from the ones that load a module', () => {
    const text = `<script lang="ts">
      import type { A } from '../lib/api';
      import { type B } from '../lib/api';
      import * as api from '../lib/api';
      import '../lib/live';
      export type { C } from '../lib/transport';
      const x = import('./Other.svelte');
    </script>`;
    expect(importsOf('./components/X.svelte', text)).toEqual([
      { path: 'lib/api.ts', typeOnly: true },
      { path: 'lib/api.ts', typeOnly: false },
      { path: 'lib/api.ts', typeOnly: false },
      { path: 'lib/live.ts', typeOnly: false },
      { path: 'lib/transport.ts', typeOnly: true },
      { path: 'components/Other.svelte', typeOnly: false },
    ]);
    expect(importsOf('./lib/stores/a.ts', "import { x } from './b';\nimport { get } from 'svelte/store';")).toEqual([
      { path: 'lib/stores/b.ts', typeOnly: false },
      { path: 'svelte/store', typeOnly: false },
    ]);
  });

  it('finds a cycle, and none where there is none', () => {
    expect(cycleIn(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual(['a', 'b', 'c', 'a']);
    expect(cycleIn(new Map([['a', ['b', 'c']], ['b', ['c']], ['c', []]]))).toBeNull();
  });
});
