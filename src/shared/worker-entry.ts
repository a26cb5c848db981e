import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * How a worker thread starts: the built .js entry, or, when the code runs from source (vitest,
 * `node --import tsx`), the .ts entry loaded through tsx's API (Node 20 does not apply `--import`
 * loader hooks to a worker's entry module). `base` is the importing module's URL; `name` the
 * entry's file name without extension, beside it.
 */
export function workerEntry(base: string, name: string, url?: URL): { script: string; eval: boolean } {
  const fromSource = base.endsWith('.ts');
  const entry = url ?? new URL(fromSource ? `./${name}.ts` : `./${name}.js`, base);
  if (!entry.pathname.endsWith('.ts')) return { script: fileURLToPath(entry), eval: false };
  // require.resolve finds the package's CommonJS build; its ESM twin sits beside it.
  const tsx = pathToFileURL(createRequire(base).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return {
    script: `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); });`,
    eval: true,
  };
}
