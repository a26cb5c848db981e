import { Option, type Command } from 'commander';
import type { Client } from '../../client/index.js';
import type { LogEntry, LogQuery } from '../../contract/account.js';
import { examples, parseIntOption, run, sleep, type CommandContext } from '../context.js';
import type { Column } from '../output.js';

// A copy of contract LOG_CATEGORIES so `--help` does not load typebox; the e2e test compares them.
export const LOG_CATEGORIES = ['api_key', 'agent', 'webhook', 'suppression', 'domain', 'label', 'thread', 'draft', 'workspace', 'oauth_grant', 'request'];

/** How often `--follow` asks for new entries. */
export const FOLLOW_INTERVAL_MS = 2000;

function details(e: LogEntry): string {
  const m = e.metadata ?? {};
  if (e.category === 'request') return `${m.status} ${m.request_id ?? ''} ${m.mode ?? ''} ${m.client_address ?? ''} ${m.duration_ms ?? '?'}ms`.replace(/\s+/g, ' ').trim();
  return Object.entries(m).map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`).join(' ');
}

const LOG_COLUMNS: Column<LogEntry>[] = [
  ['TIME', (e) => e.created_at],
  ['ACTION', (e) => e.action],
  ['TARGET', (e) => e.target_resource_id ?? ''],
  ['AGENT', (e) => e.agent_id ?? ''],
  ['KEY', (e) => e.key_id ?? ''],
  ['DETAILS', details],
];

interface LogsOptions { category?: LogQuery['category']; action?: string; agent?: string; limit?: number; cursor?: string; follow?: boolean }


function isFatal(err: unknown): boolean {
  // The same answer would come again (bad key, bad filter): polling on cannot help.
  const e = err as { name?: string; status?: number };
  return e?.name !== 'ConnectionError' && !(e?.name === 'ApiError' && typeof e.status === 'number' && (e.status >= 500 || e.status === 429));
}

/**
 * `logs --follow`: print the latest page oldest first, then poll every 2 s and print only entries
 * not seen yet, oldest first, until Ctrl-C (exit 130). Entries are matched by id rather than by
 * "newer than the last id", so an entry committed a little after a newer one (the request log is
 * written in batches) is still shown once. A burst larger than one page is read page by page.
 */
async function follow(ctx: CommandContext, client: Client, query: Partial<LogQuery>, limit: number | undefined): Promise<void> {
  const signal = ctx.signal;
  const print = (e: LogEntry) => {
    if (ctx.out.json) return ctx.out.ndjson(e);
    const cells = LOG_COLUMNS.map(([, f]) => String(f(e) ?? '').replace(/[\t\r\n]+/g, ' '));
    ctx.out.line(ctx.out.tty ? [ctx.out.c.dim(cells[0]), ctx.out.c.cyan(cells[1]), ...cells.slice(2)].filter(Boolean).join('  ') : cells.join('\t'));
  };
  let seen = new Set<string>();
  let floor = '';
  let warned = false;
  const first = await client.call('logs.list', { query: { ...query, limit }, signal });
  for (const e of [...first.data].reverse()) print(e);
  for (const e of first.data) seen.add(e.id);
  floor = first.data.at(-1)?.id ?? '';
  ctx.out.info(`${ctx.out.ce.green('Following')} the log (every ${FOLLOW_INTERVAL_MS / 1000} s, ^C to quit)`);
  while (!signal.aborted) {
    await sleep(FOLLOW_INTERVAL_MS, signal);
    if (signal.aborted) return;
    try {
      const fresh: LogEntry[] = [];
      let pageMin = '';
      let cursor: string | undefined;
      for (;;) {
        const page = await client.call('logs.list', { query: { ...query, limit: 100, cursor }, signal });
        const unseen = page.data.filter((e) => !seen.has(e.id) && e.id > floor);
        fresh.push(...unseen);
        if (page.data.length) pageMin = page.data.at(-1)!.id;
        // Keep reading back only while a whole page was new (a burst of more than 100).
        if (!page.has_more || !page.next_cursor || unseen.length < page.data.length) break;
        cursor = page.next_cursor;
      }
      fresh.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      for (const e of fresh) print(e);
      // Ids below the newest page can no longer come back on it: forget them.
      const next = new Set<string>();
      for (const id of seen) if (id >= pageMin) next.add(id);
      for (const e of fresh) next.add(e.id);
      seen = next;
      if (warned) ctx.out.info('reconnected');
      warned = false;
    } catch (err) {
      if (signal.aborted) return;
      if (isFatal(err)) throw err;
      if (!warned) ctx.out.warn(`could not read the log (${(err as Error).message}); retrying every ${FOLLOW_INTERVAL_MS / 1000} s`);
      warned = true;
    }
  }
}

export function register(program: Command): void {
  const logs = program.command('logs')
    .description('The audit log (keys, agents, webhooks, suppression, domains, labels …), newest first; --category request for the request log')
    .addOption(new Option('--category <category>', 'only this category').choices(LOG_CATEGORIES))
    .option('--action <action>', 'only this action (e.g. api_key.created; for requests: "GET /v1/agents")')
    .option('--agent <agent>', 'only entries about this agent (id, name or address)')
    .option('--limit <n>', 'page size 1..100 (default 25; with --follow: how many recent entries to show first)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .option('--follow', `keep running: print new entries as they are written (polls every ${FOLLOW_INTERVAL_MS / 1000} s; ^C to stop, exit 130)`)
    .addHelpText('after', [
      '',
      'The request log (--category request) needs an unbound key with the manage scope (e.g. --live).',
      'With --follow, entries print oldest first, one per line (NDJSON with --json).',
    ].join('\n'))
    .action(run(async (ctx: CommandContext, o: LogsOptions) => {
      const client = await ctx.client();
      const query: Partial<LogQuery> = { category: o.category, action: o.action, agent_id: o.agent };
      if (o.follow) return follow(ctx, client, query, o.limit);
      const page = await client.call('logs.list', { query: { ...query, limit: o.limit, cursor: o.cursor } });
      ctx.out.page(page, LOG_COLUMNS, 'no log entries');
    }));
  examples(logs, [
    'mailagent logs',
    'mailagent logs --category api_key --action api_key.revoked',
    'mailagent logs --follow',
    'mailagent --live logs --category request --follow --json | jq -c "{action, status: .metadata.status}"',
  ]);
}
