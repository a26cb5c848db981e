/**
 * CPU per acknowledged SMTP message, per thread, of each build's daemon with processing held back
 * (bench/tools/ack-daemon.mjs: the acknowledgement path alone — SMTP, routing, the queue row, the
 * 250), builds alternated per round so both see the same share of a shared machine.
 *
 *   npx tsx bench/tools/ack-cpu.ts [--rounds 3] [-n 4000] [--warm 1000] [-d] <build root> [<build root> …]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { perThread, threadTicks } from './thread-cpu.js';

const argv = process.argv.slice(2);
const opt = (name: string, dflt: string) => { const i = argv.indexOf(name); if (i === -1) return dflt; const v = argv[i + 1]; argv.splice(i, 2); return v; };
const ROUNDS = Number(opt('--rounds', '3'));
const N = Number(opt('-n', '4000'));
const WARM = Number(opt('--warm', '1000'));
const reuse = argv.includes('-d');
const roots = argv.filter((a) => a !== '-d').map((r) => resolve(r));
if (!roots.length) throw new Error('usage: ack-cpu.ts [--rounds R] [-n N] [--warm W] [-d] <build root> …');
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const HERE = new URL('.', import.meta.url).pathname;

function source(port: number, n: number): Promise<number> {
  const t = performance.now();
  const src = spawn('/usr/sbin/smtp-source', ['-s', '8', '-l', '2048', '-m', String(n), '-f', 'bench@load.test', '-t', 'agent@local.mailagent.localhost', '-M', 'load.test', ...(reuse ? ['-d'] : []), `127.0.0.1:${port}`], { stdio: 'ignore' });
  return new Promise((r) => src.on('exit', () => r((performance.now() - t) / 1000)));
}

async function one(root: string): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'mailagent-ackcpu-'));
  const home = join(dir, 'home');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'xdg') };
  for (const k of Object.keys(env)) if (k.startsWith('MAILAGENT_')) delete env[k];
  const child = spawn(process.execPath, [join(HERE, 'ack-daemon.mjs'), join(root, 'dist'), join(dir, 'data')], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const { smtp } = JSON.parse(await new Promise<string>((r) => lines.once('line', r))) as { smtp: number };
  try {
    if (WARM) await source(smtp, WARM);
    const before = threadTicks(child.pid!);
    const secs = await source(smtp, N);
    return { ...perThread(before, threadTicks(child.pid!), child.pid!, N), rate: N / secs };
  } finally {
    child.stdin!.write('stop\n');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`# acknowledgements only, CPU per message, ${N} after ${WARM}, ${reuse ? 'reused connections (-d)' : 'new connection per message'}, ${ROUNDS} rounds; load ${load()}`);
const all = new Map<string, Record<string, number>[]>();
for (let r = 0; r < ROUNDS; r++) {
  for (const root of r % 2 ? [...roots].reverse() : roots) {
    const res = await one(root);
    all.set(root, [...(all.get(root) ?? []), res]);
    console.log(`round ${r + 1} ${basename(root)}: ${res.rate.toFixed(0)} msg/s, main ${res.main.toFixed(3)} + others ${res.others.toFixed(3)} = ${(res.main + res.others).toFixed(3)} ms (t1 ${(res.t1 ?? 0).toFixed(3)}) (load ${load()})`);
  }
}
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
console.log('\n| build | msg/s (median) | main ms/msg | all threads ms/msg |\n|---|---|---|---|');
for (const root of roots) {
  const rs = all.get(root)!;
  console.log(`| ${basename(root)} | ${median(rs.map((x) => x.rate)).toFixed(0)} | ${median(rs.map((x) => x.main)).toFixed(3)} | ${median(rs.map((x) => x.main + x.others)).toFixed(3)} |`);
}
console.log(`load at end ${load()}`);
