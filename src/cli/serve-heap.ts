import { setFlagsFromString } from 'node:v8';

/**
 * `mailagent serve` only, before any other module of the CLI loads (cli/main.ts imports this
 * first): V8 may not grow any new space past its initial size from here on. The main thread's
 * young generation would otherwise grow to 32 MB while the CLI and the server load (V8's default
 * maximum; the main isolate's maximum is fixed when node starts and only NODE_OPTIONS can lower
 * it). The rest of the daemon's heap settings, and why: server/memory.ts.
 */
if (process.argv[2] === 'serve') setFlagsFromString('--semi-space-growth-factor=1');
