// A daemon in its own process (run with `node --import tsx`), so a test can SIGKILL it.
// argv: <dataDir>. Prints one JSON line on stdout once both listeners are up.
import { loadConfig } from '../../../src/server/config.js';
import { Daemon } from '../../../src/server/daemon.js';

const dataDir = process.argv[2];
const config = loadConfig({ dataDir, port: 0, smtpPort: 0, logLevel: 'silent' }, {});
const d = await Daemon.create(config, { quiet: true });
const addr = await d.start();
process.stdout.write(JSON.stringify({ http: addr.http, smtp: addr.smtp, liveKey: d.bootstrapped?.keys.live.key ?? null }) + '\n');
