import { Option, type Command } from 'commander';
import { readFlagFile } from '../input.js';
import { parseTime } from '../time.js';
import type { Event } from '../../contract/events.js';
import type { WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint, WebhookEndpointWithSecret, WebhookUpdate } from '../../contract/webhooks.js';
import type { VerifyResult } from '../../contract/webhook-signature.js';
import { examples, parseIntOption, parseList, run, type CommandContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import type { Column } from '../output.js';
import { CLI_VERSION } from '../version.js';
import { checkEventTypes, follow } from './events.js';

// Kept here rather than imported from contract so `--help` does not load typebox.
const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dlq'];
/** Same bound as the daemon's delivery timeout (docs/events-webhooks.md: 15 s). */
const FORWARD_TIMEOUT_MS = 15_000;

const state = (w: WebhookEndpoint) => (w.active ? 'active' : w.disabled_reason ? `disabled (${w.disabled_reason})` : 'paused');

const WEBHOOK_COLUMNS: Column<WebhookEndpoint>[] = [
  ['ID', (w) => w.id],
  ['URL', (w) => w.url],
  ['EVENTS', (w) => w.event_types.join(',')],
  ['STATE', state],
  ['DESCRIPTION', (w) => w.description ?? ''],
  ['CREATED', (w) => w.created_at],
];

const DELIVERY_COLUMNS: Column<WebhookDelivery>[] = [
  ['ID', (d) => d.id],
  ['EVENT', (d) => d.event_id],
  ['TYPE', (d) => d.event_type],
  // `failed` with a next attempt scheduled is still being retried: say so in the table (the
  // status itself is the hosted service's, kept as is in --json).
  ['STATUS', (d) => (d.status === 'failed' && d.next_retry_at ? 'failed, retrying' : d.status)],
  ['ATTEMPTS', (d) => d.attempt_number],
  ['HTTP', (d) => d.http_status ?? ''],
  ['NEXT/DONE', (d) => d.delivered_at ?? d.next_retry_at ?? ''],
  ['CREATED', (d) => d.created_at],
];

const ATTEMPT_COLUMNS: Column<WebhookDeliveryAttempt>[] = [
  ['#', (a) => a.attempt_number],
  ['STATUS', (a) => a.status],
  ['HTTP', (a) => a.http_status ?? ''],
  ['MS', (a) => a.duration_ms],
  ['ERROR', (a) => a.error ?? ''],
  ['AT', (a) => a.attempted_at],
];

function showEndpoint(ctx: CommandContext, w: WebhookEndpoint | WebhookEndpointWithSecret): void {
  ctx.out.result(w, () => {
    ctx.out.record({
      id: w.id, url: w.url, event_types: w.event_types, state: state(w), description: w.description,
      secret_rotated_at: w.secret_rotated_at, previous_secret_expires_at: w.previous_secret_expires_at,
      created_at: w.created_at, updated_at: w.updated_at,
    });
    if ('signing_secret' in w) {
      // The daemon never shows it again: say so, on stderr, and keep stdout to the data.
      ctx.out.record({ signing_secret: w.signing_secret });
      ctx.out.warn('this signing secret is shown only once: store it now (mailagent webhooks rotate-secret makes a new one)');
    }
  });
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

interface CreateOptions { url?: string; type?: string[]; description?: string; paused?: boolean }
interface UpdateOptions { url?: string; type?: string[]; description?: string; active?: boolean }
interface ListenOptions { forwardTo?: string; type?: string[]; agent?: string; since?: string; secret?: string; newSecret?: boolean }
interface VerifyOptions { secret?: string; header?: string; id?: string; timestamp?: string; tolerance?: number; bodyFile?: string }

const FORWARD_FORMS = 'accepted: 3000 or 3000/hooks (http://127.0.0.1:3000/…), localhost:3000/hooks, http://127.0.0.1:3000/hooks, https://example.com/hooks';

/**
 * `--forward-to`: a local development server by default (as `stripe listen` does): `3000` and
 * `3000/hooks` mean http://127.0.0.1:3000/…, `localhost:3000/hooks` means http://. A host typed
 * as a bare number (`7612/listen`, `http://7612/`) is refused rather than read as an IPv4
 * address (7612 is 0.0.29.188 to the URL parser): that would post real events off this machine.
 */
function checkUrl(flag: string, input: string): string {
  const refuse = (why: string) => new UsageError(`${flag}: "${input}" ${why}; ${FORWARD_FORMS}`);
  let url = input.trim();
  const local = /^:?(\d+)(\/.*)?$/.exec(url);
  if (local) {
    const port = Number(local[1]);
    if (!(port >= 1 && port <= 65535)) throw refuse(`names port ${local[1]}, not 1..65535`);
    url = `http://127.0.0.1:${port}${local[2] ?? '/'}`;
  } else if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `http://${url}`;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw refuse('is not a URL');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw refuse('must start with http:// or https://');
  // The host as typed: a number the URL parser would turn into an address (7612, 127.1, 0x7f.1)
  // is only accepted when it already is that address, written out (127.0.0.1).
  const typed = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)?.[1] ?? '';
  if (/^(0x[0-9a-f]*|\d+)(\.(0x[0-9a-f]*|\d*))*$/i.test(typed) && typed.toLowerCase() !== u.hostname) {
    throw refuse(`is ambiguous: the host "${typed}" would be read as the address ${u.hostname}`);
  }
  return u.toString();
}

export function register(program: Command): void {
  const webhooks = program.command('webhooks').description('Manage webhook endpoints and deliveries; forward events to a local server; verify signatures');

  const list = webhooks
    .command('list')
    .description('List webhook endpoints, newest first')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx, o: { limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      ctx.out.page(await client.call('webhooks.list', { query: { limit: o.limit, cursor: o.cursor } }), WEBHOOK_COLUMNS, 'no webhook endpoints');
    }));
  examples(list, ['mailagent webhooks list', 'mailagent webhooks list --json | jq -r ".data[].url"']);

  const create = webhooks
    .command('create')
    .description('Create a webhook endpoint; prints its signing secret (shown only this once)')
    .option('--url <url>', 'where to POST events (https://…, or http:// to a private address on a daemon that allows it)')
    .option('--type <type>', 'event types to receive (repeatable, comma-separated; default "*": all but thread.* and message.delayed)', parseList)
    .option('--description <text>', 'a note for humans')
    .option('--paused', 'create it paused (events are queued until `webhooks update --active`)')
    .action(run(async (ctx, o: CreateOptions) => {
      const url = ctx.require(o.url, '--url');
      const types = await checkEventTypes(o.type, '--type', true);
      const client = await ctx.client();
      const w = await client.call('webhooks.create', {
        body: { url, ...(types ? { event_types: types } : {}), ...(o.description !== undefined ? { description: o.description } : {}), ...(o.paused ? { active: false } : {}) },
      });
      if (!ctx.out.json) ctx.out.success(`created ${w.id} → ${w.url}`);
      showEndpoint(ctx, w);
    }));
  examples(create, [
    'mailagent webhooks create --url http://127.0.0.1:3000/hooks',
    'mailagent webhooks create --url https://example.com/hooks --type message.received,reply.received --description "support bot"',
    'mailagent webhooks create --url https://example.com/hooks --json | jq -r .signing_secret',
  ]);

  const get = webhooks
    .command('get')
    .description('Show a webhook endpoint')
    .argument('<id>', 'whe_ id')
    .action(run(async (ctx, id: string) => {
      const client = await ctx.client();
      showEndpoint(ctx, await client.call('webhooks.get', { params: { id } }));
    }));
  examples(get, ['mailagent webhooks get whe_01jq...', 'mailagent webhooks get whe_01jq... --json | jq .active']);

  const update = webhooks
    .command('update')
    .description('Change an endpoint: URL, event types, description; pause or resume it')
    .argument('<id>', 'whe_ id')
    .option('--url <url>', 'new URL')
    .option('--type <type>', 'replace the event types (repeatable, comma-separated; "*" for all)', parseList)
    .option('--description <text>', 'new description ("" clears it)')
    .addOption(new Option('--active', 'resume: deliver what was queued while paused, then carry on').conflicts('paused'))
    .addOption(new Option('--paused', 'pause: queue events without sending them').conflicts('active'))
    .action(run(async (ctx, id: string, o: UpdateOptions & { paused?: boolean }) => {
      const body: WebhookUpdate = {};
      if (o.url !== undefined) body.url = o.url;
      const types = await checkEventTypes(o.type, '--type', true);
      if (types) body.event_types = types;
      if (o.description !== undefined) body.description = o.description === '' ? null : o.description;
      if (o.active) body.active = true;
      if (o.paused) body.active = false;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: pass --url, --type, --description, --active or --paused');
      const client = await ctx.client();
      const w = await client.call('webhooks.update', { params: { id }, body });
      if (!ctx.out.json) ctx.out.success(`updated ${w.id} (${state(w)})`);
      showEndpoint(ctx, w);
    }));
  examples(update, [
    'mailagent webhooks update whe_01jq... --paused',
    'mailagent webhooks update whe_01jq... --active',
    'mailagent webhooks update whe_01jq... --type "*,thread.created" --description ""',
  ]);

  const del = webhooks
    .command('delete')
    .description('Delete a webhook endpoint and drop its queued deliveries')
    .argument('<id>', 'whe_ id')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(run(async (ctx, id: string, o: { yes?: boolean }) => {
      if (!(await ctx.confirm(`Delete webhook endpoint ${id} and its queued deliveries?`, o.yes))) {
        ctx.out.info('not deleted');
        return;
      }
      const client = await ctx.client();
      const r = await client.call('webhooks.delete', { params: { id } });
      ctx.out.result(r, () => ctx.out.success(`deleted ${r.id}`));
    }));
  examples(del, ['mailagent webhooks delete whe_01jq... --yes']);

  const test = webhooks
    .command('test')
    .description('Send a signed webhook.test event to the endpoint now (exit 1 if it does not answer 2xx)')
    .argument('<id>', 'whe_ id')
    .action(run(async (ctx, id: string) => {
      const client = await ctx.client();
      const r = await client.call('webhooks.test', { params: { id }, body: {} });
      ctx.out.result(r, () => {
        if (r.ok) ctx.out.success(`the endpoint answered ${r.http_status ?? '2xx'}: test delivery accepted`);
      });
      if (!r.ok) throw new CliError(`test delivery failed: ${r.error ?? `HTTP ${r.http_status}`}`);
    }));
  examples(test, ['mailagent webhooks test whe_01jq...']);

  const deliveries = webhooks
    .command('deliveries')
    .description('List deliveries to an endpoint, newest first')
    .argument('<id>', 'whe_ id')
    .addOption(new Option('--status <status>', 'only deliveries in this state').choices(DELIVERY_STATUSES))
    .option('--event <evt_id>', 'only deliveries of this event')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx, id: string, o: { status?: string; event?: string; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('webhooks.deliveries', {
        params: { id },
        query: { status: o.status as WebhookDelivery['status'] | undefined, event_id: o.event, limit: o.limit, cursor: o.cursor },
      });
      ctx.out.page(page, DELIVERY_COLUMNS, 'no deliveries');
    }));
  examples(deliveries, [
    'mailagent webhooks deliveries whe_01jq...',
    'mailagent webhooks deliveries whe_01jq... --status dlq --limit 100',
    'mailagent webhooks deliveries whe_01jq... --json | jq -r ".data[] | [.id, .status] | @tsv"',
  ]);

  const delivery = webhooks
    .command('delivery')
    .description('Show one delivery with its attempt history')
    .argument('<delivery_id>', 'whd_ id')
    .action(run(async (ctx, id: string) => {
      const client = await ctx.client();
      const d = await client.call('webhook_deliveries.get', { params: { id } });
      ctx.out.result(d, () => {
        const { attempts, ...rest } = d;
        ctx.out.record(rest);
        if (attempts.length) {
          ctx.out.line();
          ctx.out.table(attempts, ATTEMPT_COLUMNS);
        }
      });
    }));
  examples(delivery, ['mailagent webhooks delivery whd_01jq...']);

  const replay = webhooks
    .command('replay')
    .description('Deliver a delivery\'s event to its endpoint again (a new delivery, same event id)')
    .argument('<delivery_id>', 'whd_ id')
    .action(run(async (ctx, id: string) => {
      const client = await ctx.client();
      const r = await client.call('webhook_deliveries.replay', { params: { id }, body: {} });
      ctx.out.result(r, () => ctx.out.success(`${r.event_id} queued again as ${r.scheduled.join(', ')}`));
    }));
  examples(replay, ['mailagent webhooks replay whd_01jq...']);

  const rotate = webhooks
    .command('rotate-secret')
    .description('Make a new signing secret (printed once); the previous one keeps signing for a while (24 h by default)')
    .argument('<id>', 'whe_ id')
    .option('--previous-secret-ttl <seconds>', 'how long the previous secret keeps signing, 0..604800 (0: stop at once)', parseIntOption('--previous-secret-ttl', 0, 604800))
    .action(run(async (ctx, id: string, o: { previousSecretTtl?: number }) => {
      const client = await ctx.client();
      const w = await client.call('webhooks.rotate_secret', {
        params: { id }, body: o.previousSecretTtl !== undefined ? { previous_secret_ttl_seconds: o.previousSecretTtl } : {},
      });
      if (!ctx.out.json) {
        ctx.out.success(w.previous_secret_expires_at
          ? `rotated; the previous secret also signs until ${w.previous_secret_expires_at}`
          : 'rotated; the previous secret no longer signs');
      }
      showEndpoint(ctx, w);
    }));
  examples(rotate, ['mailagent webhooks rotate-secret whe_01jq...', 'mailagent webhooks rotate-secret whe_01jq... --previous-secret-ttl 0 --json | jq -r .signing_secret']);

  const listen = webhooks
    .command('listen')
    .description('Forward live events to a local URL, signed like real deliveries (like `stripe listen`)')
    .option('--forward-to <url>', 'where to POST each event: http://127.0.0.1:3000/hooks; 3000/hooks or 3000 mean http://127.0.0.1:3000/…, localhost:3000/hooks means http://')
    .option('--type <type>', 'only these event types (repeatable, comma-separated; default all)', parseList)
    .option('--agent <agent>', 'only this agent (id, name or address)')
    .option('--since <id|time>', 'first forward the events after this id, or at/after this time')
    .option('--secret <whsec>', 'sign with this secret instead of the saved one')
    .option('--new-secret', 'replace the saved signing secret for this daemon with a new one')
    .addHelpText('after', [
      '',
      'Prints the signing secret at start (stderr), then one line per forwarded event on stdout:',
      '`<time>  → 200  message.received  evt_…` (NDJSON with --json). Each POST carries the same',
      'headers as a daemon delivery: X-Mails-Signature, webhook-id/-timestamp/-signature,',
      'X-Mails-Event-Id, X-Mails-Event-Type. Events are forwarded one at a time, in order; a failed',
      'POST is reported and not retried. No webhook endpoint is created. Ctrl-C stops it (exit 130).',
      '',
      'The signing secret is made on the first run against a daemon and saved in the CLI config',
      '(listen_secrets, keyed by base URL), so every later run signs with the same secret and your',
      'receiver\'s configuration keeps working; --new-secret replaces it, --secret overrides it.',
    ].join('\n'))
    .action(run(async (ctx, o: ListenOptions) => {
      const target = checkUrl('--forward-to', ctx.require(o.forwardTo, '--forward-to'));
      const types = await checkEventTypes(o.type, '--type', true);
      const sig = await import('../../contract/webhook-signature.js');
      const { SIGNING_SECRET_PATTERN } = await import('../../contract/webhooks.js');
      if (o.secret !== undefined && !SIGNING_SECRET_PATTERN.test(o.secret)) throw new UsageError('--secret: expected whsec_ followed by base64');
      if (o.secret !== undefined && o.newSecret) throw new UsageError('--secret and --new-secret: give one of them');
      const { listenSecret } = await import('../profiles.js');
      const kept = o.secret === undefined ? listenSecret(ctx.connection().baseUrl, sig.generateSigningSecret, !!o.newSecret, ctx.env) : null;
      if (kept && !kept.saved) ctx.out.stderr.write(`warning: could not save the signing secret in ${kept.file}; the next run will print a new one\n`);
      const secret = o.secret ?? kept!.secret;
      const client = await ctx.client();
      // The secret is what the user came for: printed even with --quiet, on stderr so stdout stays data.
      ctx.out.stderr.write(`Your webhook signing secret is ${ctx.out.ce.bold(secret)}\n`);
      const c = ctx.out.c;
      await follow(ctx, client, { types, agent: o.agent, since: o.since === undefined || o.since.startsWith('evt_') ? o.since : parseTime('--since', o.since), what: `Forwarding events to ${target}` }, async (ev: Event, msg) => {
        const started = Date.now();
        const timestamp = Math.floor(started / 1000);
        const headers = {
          'content-type': 'application/json',
          'user-agent': `mailagent/${CLI_VERSION}`,
          'x-mails-event-id': ev.id,
          'x-mails-event-type': ev.type,
          ...(await sig.signatureHeaders({ secrets: [secret], messageId: ev.id, timestamp, body: msg.data })),
        };
        let status: number | null = null;
        let error: string | null = null;
        try {
          const res = await fetch(target, {
            method: 'POST', headers, body: msg.data, redirect: 'manual',
            signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(FORWARD_TIMEOUT_MS)]),
          });
          await res.arrayBuffer().catch(() => undefined);
          status = res.status;
          if (status < 200 || status > 299) error = status >= 300 && status < 400 ? `redirect not followed (HTTP ${status})` : `HTTP ${status}`;
        } catch (err) {
          if (ctx.signal.aborted) return;
          const e = err as Error & { cause?: { code?: string; message?: string } };
          error = e.name === 'TimeoutError' ? `timed out after ${FORWARD_TIMEOUT_MS / 1000} s` : e.cause?.code ?? e.cause?.message ?? e.message;
        }
        const ms = Date.now() - started;
        if (ctx.out.json) {
          ctx.out.ndjson({ event_id: ev.id, event_type: ev.type, url: target, ok: error === null, http_status: status, error, duration_ms: ms, forwarded_at: new Date(started).toISOString() });
          return;
        }
        const code = status === null ? c.red('ERR') : error ? c.red(String(status)) : c.green(String(status));
        ctx.out.line([c.dim(new Date(started).toISOString().replace('T', ' ').replace(/Z$/, '')), `→ ${code}`, c.cyan(ev.type), c.dim(ev.id), error ? c.red(error) : `${ms} ms`].join('  '));
      });
    }));
  examples(listen, [
    'mailagent webhooks listen --forward-to http://127.0.0.1:3000/hooks',
    'mailagent webhooks listen --forward-to localhost:3000/hooks',
    'mailagent webhooks listen --forward-to 3000/hooks',
    'mailagent webhooks listen --forward-to http://127.0.0.1:3000/hooks --type message.received,reply.received',
    'mailagent webhooks listen --forward-to http://127.0.0.1:3000/hooks --secret whsec_... --json',
  ]);

  const verify = webhooks
    .command('verify')
    .description('Check a webhook signature against the raw body on stdin (exit 0 valid, 1 invalid)')
    .option('--secret <whsec>', 'the endpoint\'s signing secret (whsec_…)')
    .option('--header <value>', 'the X-Mails-Signature value (t=…,v1=…), or a webhook-signature value (v1,…) with --id and --timestamp')
    .option('--id <webhook-id>', 'the webhook-id header (Standard Webhooks)')
    .option('--timestamp <unix>', 'the webhook-timestamp header (Standard Webhooks)')
    .option('--tolerance <seconds>', 'largest accepted distance between the signed time and now (default 300)', parseIntOption('--tolerance'))
    .option('--body-file <file>', 'read the raw body from this file instead of stdin')
    .action(run(async (ctx, o: VerifyOptions) => {
      const secret = ctx.require(o.secret, '--secret');
      // Accept a whole header line as copied from a log: "X-Mails-Signature: t=…".
      const header = ctx.require(o.header, '--header').replace(/^\s*(x-mails-signature|webhook-signature)\s*:\s*/i, '').trim();
      const standard = /^v\d+,/.test(header) || o.id !== undefined || o.timestamp !== undefined;
      if (standard && (o.id === undefined || o.timestamp === undefined)) {
        throw new UsageError('a webhook-signature header needs --id (webhook-id) and --timestamp (webhook-timestamp)');
      }
      let body: Buffer;
      if (o.bodyFile) {
        body = await readFlagFile(o.bodyFile, { flag: '--body-file' });
      } else {
        if (process.stdin.isTTY) throw new UsageError('pipe the raw request body on stdin (or use --body-file)');
        body = await readStdin();
      }
      const sig = await import('../../contract/webhook-signature.js');
      const tolerance = o.tolerance ?? sig.SIGNATURE_TOLERANCE_SECONDS;
      const now = Math.floor(Date.now() / 1000);
      const check = (b: Uint8Array): Promise<VerifyResult> => standard
        ? sig.verifyStandardSignature(secret, { id: o.id!, timestamp: o.timestamp!, signature: header }, b, now, tolerance)
        : sig.verifyMailsSignature(secret, header, b, now, tolerance);
      const scheme = standard ? 'webhook-signature' : 'x-mails-signature';
      let r = await check(body);
      // The commonest mistake when debugging: `echo` added a newline the sender never signed.
      if (!r.ok && body.length && body[body.length - 1] === 0x0a && (await check(body.subarray(0, body.length - 1))).ok) {
        r = { ok: false, timestamp: r.timestamp, reason: 'it matches only without the trailing newline: pass the body byte for byte (printf, not echo)' };
      }
      if (ctx.out.json) ctx.out.printJson({ valid: r.ok, scheme, timestamp: r.timestamp ?? null, ...(r.ok ? {} : { reason: r.reason }) });
      if (!r.ok) throw new CliError(`invalid signature: ${r.reason}`);
      if (!ctx.out.json) ctx.out.success(`valid ${scheme === 'webhook-signature' ? 'webhook-signature' : 'X-Mails-Signature'} (signed ${now - r.timestamp!} s ago)`);
    }));
  examples(verify, [
    'mailagent webhooks verify --secret whsec_... --header "t=1767225600,v1=5f0c…" < body.json',
    'mailagent webhooks verify --secret whsec_... --id evt_01jq... --timestamp 1767225600 --header "v1,K5oZ…" --body-file body.json',
  ]);
}
