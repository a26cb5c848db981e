import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '/work/main/src/server/config.js';
import { openDatabase, migrate } from '/work/main/src/db/open.js';
import { createContext } from '/work/main/src/server/context.js';
import { bootstrapWorkspace } from '/work/main/src/services/bootstrap.js';
import { ingestInbound } from '/work/main/src/services/inbound.js';
import { systemClock } from '/work/main/src/shared/clock.js';
async function main() {
const dir = mkdtempSync(join(tmpdir(), 'p-'));
const config = loadConfig({ dataDir: dir, logLevel: 'silent' }, {});
const o = openDatabase(config.dbFile); await migrate(o.db);
const ctx = createContext(config, o.db, systemClock);
await bootstrapWorkspace(ctx, {});
const raw = Buffer.from('From: a@b.test\r\nSubject: x\r\n\r\n' + 'hello world. '.repeat(300));
await ingestInbound(ctx, { raw, mailFrom: 'a@b.test', rcptTo: ['agent@local.mailagent.localhost'], source: 'smtp' });
const t0 = Date.now();
for (let k = 0; k < 10; k++) await Promise.all(Array.from({ length: 30 }, () => ingestInbound(ctx, { raw, mailFrom: 'a@b.test', rcptTo: ['agent@local.mailagent.localhost'], source: 'smtp' })));
console.log('300 ingests ms', Date.now() - t0);
}
main();
