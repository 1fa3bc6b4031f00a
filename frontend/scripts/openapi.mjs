// The page's wire types come from the contract: openapi-typescript turns
// ../api/openapi.json into src/lib/openapi.d.ts.
//
//   node scripts/openapi.mjs           (npm run gen) writes it;
//   node scripts/openapi.mjs --check   (first step of npm run check)
//                                      generates into a temporary file and
//                                      fails if the checked-in one differs.
//
// --empty-objects-unknown: the contract's free-form objects (a node's
// properties, a link's filters) are Record<string, unknown>, not
// Record<string, never>.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const CONTRACT = '../api/openapi.json';
const TARGET = 'src/lib/openapi.d.ts';
const bin = path.join(root, 'node_modules', '.bin', 'openapi-typescript');

function generate(out) {
  execFileSync(bin, [CONTRACT, '--empty-objects-unknown', '-o', out], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

if (process.argv.includes('--check')) {
  const dir = mkdtempSync(path.join(tmpdir(), 'nodedesk-openapi-'));
  try {
    const fresh = path.join(dir, 'openapi.d.ts');
    generate(fresh);
    let have = '';
    try {
      have = readFileSync(path.join(root, TARGET), 'utf8');
    } catch {
      /* missing: differs */
    }
    if (readFileSync(fresh, 'utf8') !== have) {
      console.error(`\nfrontend/${TARGET} is not what api/openapi.json generates: the contract changed and the page's types did not follow.\nRun \`cd frontend && npm run gen\`, fix what no longer type-checks, and commit both.\n`);
      process.exit(1);
    }
    console.error(`frontend/${TARGET} matches api/openapi.json`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
} else {
  generate(TARGET);
}
