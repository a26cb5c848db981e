/**
 * Regenerate man/*.1 and completions/mailagent.{bash,zsh,fish} from the commander tree, and the
 * `man` list of package.json.
 * Run: npm run docs (tsx scripts/gen-docs.ts). test/unit/cli/docs-fresh.test.ts fails when stale.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildProgram } from '../src/cli/program.js';
import { generatedFiles, manList } from '../src/cli/docs.js';

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
// package.json lists the pages (npm links `man` entries into <prefix>/share/man on a global
// install; it does not read `directories.man`).
const pkgFile = join(root, 'package.json');
const pkgText = readFileSync(pkgFile, 'utf8');
const pkg = JSON.parse(pkgText) as Record<string, unknown>;
pkg.man = manList(files);
const pkgNew = JSON.stringify(pkg, null, 2) + '\n';
if (pkgNew !== pkgText) {
  writeFileSync(pkgFile, pkgNew);
  changed++;
  console.log('wrote package.json (man)');
}
console.log(changed ? `${changed} file(s) updated` : 'man/, completions/ and package.json are up to date');
