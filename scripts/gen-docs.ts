/**
 * Regenerate man/*.1 and completions/mailagent.{bash,zsh,fish} from the commander tree.
 * Run: npm run docs (tsx scripts/gen-docs.ts). test/unit/cli/docs-fresh.test.ts fails when stale.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../src/cli/program.js';
import { generatedFiles } from '../src/cli/docs.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const files = generatedFiles(buildProgram());
let changed = 0;
for (const [rel, text] of Object.entries(files)) {
  const file = join(root, rel);
  mkdirSync(dirname(file), { recursive: true });
  if (existsSync(file) && readFileSync(file, 'utf8') === text) continue;
  writeFileSync(file, text);
  changed++;
  console.log(`wrote ${rel}`);
}
// A command that was removed must not leave its page behind.
for (const name of readdirSync(join(root, 'man'))) {
  if (name.endsWith('.1') && !(`man/${name}` in files)) {
    rmSync(join(root, 'man', name));
    changed++;
    console.log(`removed man/${name}`);
  }
}
console.log(changed ? `${changed} file(s) updated` : 'man/ and completions/ are up to date');
