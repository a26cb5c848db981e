import { readFileSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * `mailagent --help` must not load fastify, SQLite, typebox or the prompts: the modules reachable
 * from src/cli/main.ts through STATIC imports may only be the CLI itself and light packages.
 * (Dynamic `import()` inside actions is how everything heavy is loaded.)
 */
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const STATIC_IMPORT = /^\s*(?:import|export)\s+(?!type\b)(?:[^'"]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

function staticClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(STATIC_IMPORT)) {
      const spec = m[1];
      if (spec.startsWith('.')) {
        const ts = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
        if (existsSync(ts)) todo.push(ts);
      } else {
        packages.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
      }
    }
  }
  return { files, packages };
}

describe('cold start import graph', () => {
  const { files, packages } = staticClosure(join(ROOT, 'src', 'cli', 'main.ts'));

  it('stays inside src/cli, but for contract modules that import nothing (contract/neutralize.ts)', () => {
    const outside = [...files].map((f) => f.slice(ROOT.length + 1)).filter((f) => !f.startsWith('src/cli/'));
    const leaves = outside.filter((f) => f.startsWith('src/contract/') && ![...readFileSync(join(ROOT, f), 'utf8').matchAll(STATIC_IMPORT)].length);
    expect(outside.filter((f) => !leaves.includes(f))).toEqual([]);
  });

  it('loads only commander and chalk (plus node: built-ins)', () => {
    const pkgs = [...packages].filter((p) => !p.startsWith('node:')).sort();
    expect(pkgs).toEqual(['chalk', 'commander']);
  });
});
