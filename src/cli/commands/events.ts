import type { Command } from 'commander';
import { parseTime } from '../time.js';
import type { Client, SseMessage } from '../../client/index.js';
import type { Event } from '../../contract/events.js';
import { examples, parseIntOption, parseList, run, sleep, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { neutralize, type Column } from '../output.js';

const EVENT_COLUMNS: Column<Event>[] = [
  ['ID', (e) => e.id],
  ['TYPE', (e) => e.type],
  ['AGENT', (e) => e.agent_id ?? ''],
  ['MODE', (e) => (e.test_mode ? 'test' : 'live')],
  ['SUMMARY', (e) => summary(e)],
  ['CREATED', (e) => e.created_at],
];

/**
 * Unknown types are refused by the daemon too (400 invalid_param_value); checking here makes a typo
 * a usage error (exit 2) that lists the known types. The list lives in the contract, loaded lazily
 * so `--help` does not load typebox.
 */
export async function checkEventTypes(types: string[] | undefined, flag: string, allowWildcard: boolean): Promise<string[] | undefined> {
  if (!types?.length) return undefined;
  const { EVENT_TYPES } = await import('../../contract/events.js');
  const known = new Set<string>([...EVENT_TYPES, ...(allowWildcard ? ['*'] : [])]);
  const bad = types.filter((t) => !known.has(t));
  if (bad.length) {
    throw new UsageError(`${flag}: unknown event type ${bad.map((b) => `"${b}"`).join(', ')} (known: ${[...known].join(', ')})`);
  }
  return [...new Set(types)];
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** One short human phrase for an event, from the fields its data usually carries. */
export function summary(e: Event): string {
  const d = (e.data ?? {}) as Record<string, unknown>;
  const agent = d.agent as { email?: unknown; status?: unknown } | undefined;
  const bits: string[] = [];
  if (agent && str(agent.email)) bits.push(`${agent.email}${str(agent.status) ? ` (${agent.status})` : ''}`);
  const from = str(d.from);
  const to = Array.isArray(d.to) ? d.to.filter((x) => typeof x === 'string').join(', ') : str(d.to);
  if (from || to) bits.push(`${from ?? ''}${from && to ? ' → ' : ''}${to ?? ''}`);
  if (str(d.address)) bits.push(`${d.address}${str(d.type) ? ` (${d.type})` : ''}`);
  const subject = str(d.subject);
  if (subject) bits.push(`"${subject.length > 60 ? subject.slice(0, 59) + '…' : subject}"`);
  if (typeof d.message_count === 'number') bits.push(`${d.message_count} message${d.message_count === 1 ? '' : 's'}`);
  const err = str(d.error_message) ?? str(d.error);
  if (err) bits.push(`error: ${err}`);
  if (e.quarantined) bits.push('[quarantined]');
  // Mail fields (from, subject, error) neutralised here, the way every other view does it: a
  // control character shows as ^[ / ^M, never as a JSON escape, and no SGR sequence from mail
  // survives into the coloured tail line.
  return neutralize(bits.join('  '));
}

export interface FollowOptions {
  types?: string[];
  agent?: string;
  since?: string;
  /** "Tailing events" / "Forwarding events to …": the rest of the Ready line. */
  what: string;
}


/** Backoff between reconnection attempts: 1, 2, 4, 8, 16, then every 30 s. */
export const reconnectDelayMs = (attempt: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));

function isFatal(err: unknown): boolean {
  // An answer the daemon will give again (bad key, bad filter, unknown agent): reconnecting cannot help.
  const e = err as { name?: string; status?: number };
  return e?.name === 'ApiError' && typeof e.status === 'number' && e.status < 500 && e.status !== 429 && e.status !== 408;
}

function describe(err: unknown): string {
  const e = err as { name?: string; reason?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'ConnectionError' && e.reason) return e.reason;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

/**
 * Follow GET /v1/events/stream until Ctrl-C, the way `stripe logs tail` does: status lines on
 * stderr, each event handed to `onEvent` in order, and when the connection drops (daemon restart,
 * network) reconnect with backoff and `Last-Event-ID`, so the daemon replays exactly what was
 * missed (docs/events-webhooks.md: resume). Before the first event there is no id to resume from,
 * so the reconnect asks for `since=<the time the stream opened>` (the daemon's Date header).
 * A first connection that fails, and any 4xx, end the command with the error.
 */
export async function follow(
  ctx: CommandContext, client: Client, o: FollowOptions, onEvent: (ev: Event, msg: SseMessage) => Promise<void> | void,
): Promise<void> {
  const signal = ctx.signal;
  // `events tail | head -1`: once the reader has gone, stop quietly as Unix tools do, rather than
  // crash on the unhandled EPIPE (Node ignores SIGPIPE, so it would otherwise surface as a stack).
  if (ctx.out.stdout === process.stdout) {
    process.stdout.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
      process.exit(0);
    });
  }
  const query = { event_types: o.types?.join(','), agent_id: o.agent, since: o.since };
  const url = `${client.baseUrl}/events/stream`;
  let lastId: string | null = null;
  let openedAt: string | null = null;
  let connected = false;
  let attempt = 0;
  while (!signal.aborted) {
    let reason: string;
    try {
      const q = lastId || !openedAt ? query : { ...query, since: query.since ?? openedAt };
      const stream = client.stream('/events/stream', q, {
        lastEventId: lastId,
        signal,
        onOpen: ({ headers }) => {
          if (!openedAt) {
            const date = Date.parse(headers.get('date') ?? '');
            openedAt = new Date(Number.isNaN(date) ? Date.now() : date).toISOString();
          }
          if (!connected) ctx.out.info(`${ctx.out.ce.green('Ready!')} ${o.what} from ${url} (^C to quit)`);
          else ctx.out.info(`${ctx.out.ce.green('Reconnected')}${lastId ? `, resuming after ${lastId}` : ''}`);
          connected = true;
          attempt = 0;
        },
      });
      for await (const msg of stream) {
        let ev: Event;
        try {
          ev = JSON.parse(msg.data) as Event;
        } catch {
          ctx.out.warn(`skipped an event whose data is not JSON (id ${msg.id ?? 'none'})`);
          continue;
        }
        if (msg.id) lastId = msg.id;
        await onEvent(ev, msg);
        if (signal.aborted) return;
      }
      if (signal.aborted) return;
      reason = 'the daemon closed the stream';
    } catch (err) {
      if (signal.aborted) return;
      if (!connected || isFatal(err)) throw err;
      reason = describe(err);
    }
    attempt += 1;
    const wait = reconnectDelayMs(attempt);
    ctx.out.warn(`connection lost (${reason}); reconnecting in ${wait / 1000} s${lastId ? ` (Last-Event-ID ${lastId})` : ''}`);
    await sleep(wait, signal);
  }
}

/** `2026-03-01 09:30:15.123` in UTC, the way the API writes times but easier to scan. */
const shortTime = (iso: string) => iso.replace('T', ' ').replace(/Z$/, '');

interface ListOptions { type?: string[]; agent?: string; since?: string; limit?: number; cursor?: string }
interface TailOptions { type?: string[]; agent?: string; since?: string }

export function register(program: Command): void {
  const events = program.command('events').description('List, inspect and tail events (everything that happens, as it happens)');

  const list = events
    .command('list')
    .description('List events, newest first')
    .option('--type <type>', 'only these event types (exact; repeatable, comma-separated, e.g. message.received,reply.received)', parseList)
    .option('--agent <agent>', 'only this agent (id, name or address)')
    .option('--since <id|time>', 'only events after this event id, or at/after this time (ISO 8601 or YYYY-MM-DD, UTC unless an offset is given)')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx, o: ListOptions) => {
      const types = await checkEventTypes(o.type, '--type', false);
      const client = await ctx.client();
      // The list route takes a time; an id means "after that event": start at its time, drop it and older.
      let since = o.since === undefined || o.since.startsWith('evt_') ? o.since : parseTime('--since', o.since);
      let afterId: string | null = null;
      if (since?.startsWith('evt_')) {
        afterId = since;
        since = (await client.call('events.get', { params: { id: afterId } })).created_at;
      }
      const page = await client.call('events.list', {
        query: { event_type: types?.join(','), agent_id: o.agent, since, limit: o.limit, cursor: o.cursor },
      });
      if (afterId) page.data = page.data.filter((e) => e.id > afterId!);
      ctx.out.page(page, EVENT_COLUMNS, 'no events');
    }));
  examples(list, [
    'mailagent events list --type message.received --agent support',
    'mailagent events list --type message.received,reply.received --limit 100',
    'mailagent events list --since 2026-03-01 --limit 100',
    'mailagent events list --since evt_01jq... --json | jq -r ".data[].type"',
  ]);

  const get = events
    .command('get')
    .description('Show one event')
    .argument('<id>', 'evt_ id')
    .action(run(async (ctx, id: string) => {
      const client = await ctx.client();
      const ev = await client.call('events.get', { params: { id } });
      ctx.out.result(ev, (e) => {
        ctx.out.record({
          id: e.id, type: e.type, agent_id: e.agent_id, thread_id: e.thread_id, source_message_id: e.source_message_id,
          mode: e.test_mode ? 'test' : 'live', created_at: e.created_at, summary: summary(e),
        });
        ctx.out.line(JSON.stringify(e.data, null, 2));
      });
    }));
  examples(get, ['mailagent events get evt_01jq...', 'mailagent events get evt_01jq... --json | jq .data']);

  const redeliver = events
    .command('redeliver')
    .description('Queue an event again for webhook endpoints (all subscribed to its type, or those named)')
    .argument('<id>', 'evt_ id')
    .option('--webhook <whe_id>', 'only this endpoint (repeatable, comma-separated)', parseList)
    .action(run(async (ctx, id: string, o: { webhook?: string[] }) => {
      const client = await ctx.client();
      const r = await client.call('events.redeliver', {
        params: { id }, body: o.webhook?.length ? { webhook_endpoint_ids: o.webhook } : {},
      });
      ctx.out.result(r, () => ctx.out.success(
        r.webhook_endpoint_ids.length
          ? `${r.event_id} queued for ${r.webhook_endpoint_ids.join(', ')}`
          : `${r.event_id}: no endpoint is subscribed to this event type`,
      ));
    }));
  examples(redeliver, ['mailagent events redeliver evt_01jq...', 'mailagent events redeliver evt_01jq... --webhook whe_01jq...']);

  const tail = events
    .command('tail')
    .description('Follow events live: one line per event on stdout (NDJSON with --json); reconnects and resumes by itself')
    .option('--type <type>', 'only these event types (repeatable, comma-separated; default all)', parseList)
    .option('--agent <agent>', 'only this agent (id, name or address)')
    .option('--since <id|time>', 'first replay the events after this id, or at/after this time, then follow')
    .addHelpText('after', [
      '',
      'Status lines ("Ready!", reconnect notices) go to stderr; events to stdout. When the connection',
      'drops, tail reconnects with backoff (1 s, 2 s, 4 s … 30 s) and Last-Event-ID, so no event is',
      'lost or shown twice. Ctrl-C stops it (exit 130).',
    ].join('\n'))
    .action(run(async (ctx, o: TailOptions) => {
      const types = await checkEventTypes(o.type, '--type', true);
      const client = await ctx.client();
      const names = new Map<string, Promise<string>>();
      // Show agents by name: looked up once per agent, the id when the lookup fails.
      const agentName = (id: string | null | undefined): Promise<string> => {
        if (!id) return Promise.resolve('-');
        let p = names.get(id);
        if (!p) {
          p = client.call('agents.get', { params: { id } }).then((a) => a.name, () => id);
          names.set(id, p);
        }
        return p;
      };
      const c = ctx.out.c;
      const since = o.since === undefined || o.since.startsWith('evt_') ? o.since : parseTime('--since', o.since);
      await follow(ctx, client, { types, agent: o.agent, since, what: 'Tailing events' }, async (ev, msg) => {
        if (ctx.out.json) return ctx.out.line(msg.data);
        const agent = await agentName(ev.agent_id);
        ctx.out.line([
          c.dim(shortTime(ev.created_at)), c.cyan(ev.type), c.dim(ev.id), agent, ev.test_mode ? c.yellow('[test]') : '', summary(ev),
        ].filter(Boolean).join('  '));
      });
    }));
  examples(tail, [
    'mailagent events tail',
    'mailagent events tail --type message.received,reply.received --agent support',
    'mailagent events tail --since 2026-03-01T09:00 --json | jq -c "{type, id}"',
  ]);
}
