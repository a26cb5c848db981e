import { setFlagsFromString } from 'node:v8';

/**
 * `mailagent serve` only, before any other module of the CLI is even read: bin/mailagent imports
 * this, then cli/main.ts with import() (a static import would have the whole CLI read and compiled
 * first, long enough for the main thread's new space to grow 2 → 4 MB); cli/main.ts imports it
 * first too, for anything that starts there. V8 may not grow any new space past its initial size
 * from here on. The main thread's
 * young generation would otherwise grow to 32 MB while the CLI and the server load (V8's default
 * maximum; the main isolate's maximum is fixed when node starts and only NODE_OPTIONS can lower
 * it). The rest of the daemon's heap settings, and why: server/memory.ts.
 */
if (process.argv[2] === 'serve') setFlagsFromString('--semi-space-growth-factor=1');
