/** Closed-loop GET load for profiling: npx tsx bench/tools/load-me.ts <url> <key> [seconds] */
import http from 'node:http';
const [url, key, secs = '8'] = process.argv.slice(2);
const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
let n = 0;
const end = Date.now() + Number(secs) * 1000;
await Promise.all(Array.from({ length: 32 }, async () => {
  while (Date.now() < end) {
    await new Promise<void>((res, rej) => http.get(url, { agent, headers: { authorization: `Bearer ${key}` } }, (r) => { r.resume(); r.on('end', () => res()); }).on('error', rej));
    n++;
  }
}));
console.log(`${(n / Number(secs)).toFixed(0)} req/s`);
agent.destroy();
