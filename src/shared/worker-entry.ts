import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

/**
 * Set (true) in the environment data of the threads the daemon starts (server/memory.ts): each
 * thread then holds V8's young-generation growth (`--semi-space-growth-factor=1`) before its entry
 * module loads. V8 resets that process-wide flag to its default whenever it creates an isolate,
 * i.e. at every thread's start, and the main thread's new space would double if a scavenge landed
 * before the hold was set again.
 */
export const HOLD_YOUNG_GROWTH = 'mailagent:hold-young-growth';

/**
 * Every thread's script: the hold above first (two built-in modules, none of ours), then `load`,
 * the entry's import. import(), not require(): an eval'd script is a module under the parent's
 * `--input-type=module`.
 */
function prelude(load: string): string {
  return `Promise.all([import('node:worker_threads'), import('node:v8')]).then(([threads, v8]) => {
  if (threads.getEnvironmentData(${JSON.stringify(HOLD_YOUNG_GROWTH)})) v8.setFlagsFromString('--semi-space-growth-factor=1');
  return ${load};
});`;
}

/**
 * How a worker thread starts: an eval'd script, the prelude above and then an import() of the
 * built .js entry, or, when the code runs from source (vitest, `node --import tsx`), of the .ts
 * entry through tsx's API (Node 20 does not apply `--import` loader hooks to a worker's entry
 * module). `base` is the importing module's URL; `name` the
 * entry's file name without extension, beside it.
 */
export function workerEntry(base: string, name: string, url?: URL): { script: string; eval: boolean } {
  const fromSource = base.endsWith('.ts');
  const entry = url ?? new URL(fromSource ? `./${name}.ts` : `./${name}.js`, base);
  if (!entry.pathname.endsWith('.ts')) return { script: prelude(`import(${JSON.stringify(entry.href)})`), eval: true };
  // require.resolve finds the package's CommonJS build; its ESM twin sits beside it.
  const tsx = pathToFileURL(createRequire(base).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  return {
    script: prelude(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry.href)}); })`),
    eval: true,
  };
}
