// The text-search lists in one process, one connection, through the repositories (no HTTP): p50
// wall and CPU time of 30 calls after 5, for one build's source on one database file
// (bench/README.md, round 2 session 14). Run: npx tsx bench/search-lists.bench.ts <build root> <mailagent.db> [calls]
const [root, file, nArg] = process.argv.slice(2);
const N = Number(nArg ?? 30);
const { openDatabase } = await import(`${root}/src/db/open.ts`);
const { listSentMessages } = await import(`${root}/src/db/repos/messages.ts`);
const { listReceived } = await import(`${root}/src/db/repos/received.ts`);
const { listThreadsView } = await import(`${root}/src/db/repos/threads.ts`);
const { parseSearch } = await import(`${root}/src/services/search.ts`);
const o = openDatabase(file);
const db = o.db;
const ws = (await db.selectFrom('sent_messages').select('workspace_id').limit(1).executeTakeFirstOrThrow()).workspace_id;
const cases: [string, (c?: string) => Promise<{ rows: unknown[]; next_cursor?: string }>][] = [
  ['sent, no search', (c) => listSentMessages(db, ws, { agentId: null, search: null }, { limit: 20, cursor: c })],
  ['sent q=zebra', (c) => listSentMessages(db, ws, { agentId: null, search: parseSearch('zebra') }, { limit: 20, cursor: c })],
  ['sent q=zebra limit 2 page 2', (c) => listSentMessages(db, ws, { agentId: null, search: parseSearch('zebra') }, { limit: 2, cursor: c })],
  ['sent q=nowhere', (c) => listSentMessages(db, ws, { agentId: null, search: parseSearch('nowhere') }, { limit: 20, cursor: c })],
  ['received q=zebra', (c) => listReceived(db, ws, { agentId: null, search: parseSearch('zebra') }, { limit: 20, cursor: c })],
  ['threads q=zebra', (c) => listThreadsView(db, ws, { trashed: false, search: parseSearch('zebra') }, { limit: 20, cursor: c })],
];
const out: string[] = [];
for (const [name, f] of cases) {
  let cursor: string | undefined;
  if (name.includes('page 2')) cursor = (await f()).next_cursor;
  const ts: number[] = [];
  const cpu: number[] = [];
  let rows = 0;
  const until = performance.now() + 15_000;
  for (let i = 0; i < N + 5 && (i < 8 || performance.now() < until); i++) {
    const t = performance.now();
    const c = process.cpuUsage();
    const r = await f(cursor);
    const dc = process.cpuUsage(c);
    if (i >= 5) { ts.push(performance.now() - t); cpu.push((dc.user + dc.system) / 1000); }
    rows = r.rows.length;
  }
  ts.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  out.push(`${name}: wall p50 ${ts[Math.floor(ts.length / 2)].toFixed(2)} ms, CPU p50 ${cpu[Math.floor(cpu.length / 2)].toFixed(2)} ms (${rows} rows, ${ts.length} timed)`);
}
console.log(out.join('\n'));
await o.close();
