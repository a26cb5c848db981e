// A daemon in its own process (run with `node --import tsx`), so a test can SIGKILL it.
// argv: <dataDir> [JSON of extra settings, as a config file holds them]. Prints one JSON line on
// stdout once both listeners are up.
import { loadConfig } from '../../../src/server/config.js';
import { Daemon } from '../../../src/server/daemon.js';

const dataDir = process.argv[2];
const extra = process.argv[3] ? JSON.parse(process.argv[3]) as Record<string, string> : {};
const config = loadConfig({ ...extra, dataDir, port: 0, smtpPort: 0, logLevel: 'silent' }, {});
const d = await Daemon.create(config, { quiet: true });
const addr = await d.start();
process.stdout.write(JSON.stringify({ http: addr.http, smtp: addr.smtp, liveKey: d.bootstrapped?.keys.live.key ?? null }) + '\n');
