// A daemon from a given build (dist/ directory) in its own process with its processing held back
// (the pool's parse waits, as `ingest-load.ts --pause` does), so the acknowledgement path — SMTP,
// routing, the raw message's durable row in inbound_queue, the 250 — is measured alone.
//   node bench/tools/ack-daemon.mjs <dist dir> <data dir>
// First stdout line: {"smtp": port}. stdin: "release" (processing runs; answers "drained" once
// the queue is empty), "stop".
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { join, resolve } from 'node:path';

const [dist, dataDir] = process.argv.slice(2);
const mod = (p) => import(pathToFileURL(join(resolve(dist), p)).href);
const { loadConfig } = await mod('server/config.js');
const { Daemon } = await mod('server/daemon.js');
const d = await Daemon.create(loadConfig({ dataDir, port: 0, smtpPort: 0, logLevel: 'silent' }, {}), { quiet: true });
const addr = await d.start();
await d.ctx.db.updateTable('workspaces').set({ tier: 'scale', created_at: '2020-01-01T00:00:00.000Z' }).execute();
let release;
const gate = new Promise((r) => { release = r; });
const w = d.ctx.work;
const parse = w.parse.bind(w);
w.parse = async (raw, along) => { await gate; return parse(raw, along); };
process.stdout.write(JSON.stringify({ smtp: Number(String(addr.smtp).split(':').pop()) }) + '\n');
const queued = async () => Number((await d.ctx.db.selectFrom('inbound_queue').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line === 'release') {
    release();
    void (async () => {
      while (await queued() > 0) await new Promise((r) => setTimeout(r, 20));
      process.stdout.write('drained\n');
    })();
  } else if (line === 'stop') void d.stop().then(() => process.exit(0));
});
