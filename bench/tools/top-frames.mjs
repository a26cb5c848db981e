// Summarise a .cpuprofile: top self-time frames, and self time per package/file group.
// Usage: node bench/tools/top-frames.mjs <file.cpuprofile> [n]
import { readFileSync } from 'node:fs';
const prof = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const N = Number(process.argv[3] ?? 40);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = prof.timeDeltas;
for (let i = 0; i < prof.samples.length; i++) self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + (dt[i] ?? 0));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const frames = new Map();
const groups = new Map();
for (const [id, t] of self) {
  const cf = byId.get(id).callFrame;
  const url = cf.url.replace(/^file:\/\//, '').replace(/.*node_modules\//, 'nm:').replace(/.*\/work\/main\//, '');
  const key = `${cf.functionName || '(anon)'}  ${url}:${cf.lineNumber + 1}`;
  frames.set(key, (frames.get(key) ?? 0) + t);
  const g = url.startsWith('nm:') ? url.split('/').slice(0, url.startsWith('nm:@') ? 2 : 1).join('/') : url.startsWith('src/') || url.startsWith('bench/') || url.startsWith('test/') ? url : url ? 'node:' + url.split('/')[0] : cf.functionName;
  groups.set(g, (groups.get(g) ?? 0) + t);
}
const pr = (m, n) => [...m].sort((a, b) => b[1] - a[1]).slice(0, n).forEach(([k, t]) => console.log(`${((100 * t) / total).toFixed(1).padStart(5)}%  ${k}`));
console.log(`total ${(total / 1e6).toFixed(2)} s sampled\n-- top frames (self)`);
pr(frames, N);
console.log('\n-- by file/package (self)');
pr(groups, 30);
