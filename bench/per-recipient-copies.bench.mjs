// CPU time per live send of one message to 10 outside recipients, through a real relay (smtp-server sink).
// Usage: node bench/per-recipient-copies.bench.mjs <before build root> <after build root> (each built: npm run build).
// Alternates the two builds twice; prints ms of daemon CPU (utime+stime of the serve process) per send.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
const require = createRequire(new URL('../package.json', import.meta.url));
const { SMTPServer } = require('smtp-server');
let got = 0;
const sink = new SMTPServer({ authOptional: true, hideSTARTTLS: true, disableReverseLookup: true, logger: false,
  onData(s, _x, cb) { s.on('data', () => {}); s.on('end', () => { got++; cb(null, 'Ok: queued as X'); }); } });
await new Promise((r) => sink.listen(0, '127.0.0.1', r));
const relay = `smtp://127.0.0.1:${sink.server.address().port}`;
const clk = Number(spawnSync('getconf', ['CLK_TCK']).stdout.toString().trim());
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) / clk; };
async function round(root, n) {
  const home = mkdtempSync(join(tmpdir(), 'f11b-'));
  const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'c'), XDG_DATA_HOME: join(home, 'd') };
  for (const k of Object.keys(env)) if (k.startsWith('MAILAGENT_')) delete env[k];
  const dd = join(home, 'data');
  spawnSync(process.execPath, [join(root, 'bin/mailagent'), 'init', '--data-dir', dd], { env });
  spawnSync(process.execPath, [join(root, 'bin/mailagent'), 'admin', 'tier', 'scale', '--data-dir', dd], { env });
  const cfg = JSON.parse(readFileSync(join(home, 'c/mailagent/config.json'), 'utf8')).profiles.default;
  const child = spawn(process.execPath, [join(root, 'bin/mailagent'), 'serve', '--port', '0', '--smtp-port', '0', '--data-dir', dd, '--relay', relay, '--log-level', 'silent'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  const url = await new Promise((res) => child.stderr.on('data', (d) => { err += d; const m = /ready: API (http:\S+)/.exec(err); if (m) res(m[1]); }));
  const to = Array.from({ length: 10 }, (_, i) => `r${i}@example.com`);
  const send = () => fetch(`${url}/v1/messages`, { method: 'POST', headers: { authorization: `Bearer ${cfg.live_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ agent: 'agent', to, subject: 'Weekly project update', body_text: 'Here is what happened on the project this week. '.repeat(20) }) }).then(async (r) => { if (r.status !== 201) throw new Error(r.status + await r.text()); });
  for (let i = 0; i < 10; i++) await send();
  const before = cpu(child.pid);
  for (let i = 0; i < n; i += 4) await Promise.all([send(), send(), send(), send()]);
  const used = cpu(child.pid) - before;
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  rmSync(home, { recursive: true, force: true });
  return used / n * 1000;
}
const out = { before: [], after: [] };
for (let k = 0; k < 2; k++) for (const [name, root] of [['before', process.argv[2]], ['after', process.argv[3]]]) {
  out[name].push(await round(root, 60));
  await new Promise((r) => setTimeout(r, 11_000)); // the burst window
}
console.log(JSON.stringify(out), 'load', spawnSync('uptime').stdout.toString().trim(), 'relay messages', got);
sink.close();
