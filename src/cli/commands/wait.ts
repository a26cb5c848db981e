import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ReceivedMessage } from '../../contract/received.js';
import { examples, run, type CommandContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { printReceived } from './inbox.js';

/** The daemon holds one long-poll for at most this long (docs/inbound.md; InboxWaitQuery.timeout). */
export const SERVER_MAX_WAIT_S = 60;

/** `30s`, `2m`, `1h`, `90` (seconds) → seconds. */
export function parseDuration(v: string): number {
  const m = /^\s*(\d+)\s*(s|sec|secs|seconds?|m|min|mins|minutes?|h|hours?)?\s*$/i.exec(v);
  if (!m) throw new InvalidArgumentError(`"${v}" is not a duration (use e.g. 30s, 2m, 1h or 90 for seconds)`);
  const n = Number(m[1]);
  const unit = (m[2] ?? 's')[0].toLowerCase();
  return n * (unit === 'h' ? 3600 : unit === 'm' ? 60 : 1);
}

/** The daemon's own rule (services/inbox-wait.ts): a rcv_ id, or an ISO 8601 time, UTC unless an offset is given. */
function checkSince(since: string): string {
  if (/^rcv_[0-9a-z]+$/i.test(since)) return since;
  const zoned = /[zZ]|[+-]\d{2}:?\d{2}$/.test(since) || /^\d{4}-\d{2}-\d{2}$/.test(since) ? since : since + 'Z';
  if (!/^\d{4}-\d{2}-\d{2}/.test(since) || !Number.isFinite(Date.parse(zoned))) {
    throw new UsageError(`--since "${since}" is neither an ISO 8601 time (e.g. 2026-03-01T09:00:00Z) nor a received-message id (rcv_...)`);
  }
  return since;
}

const fmt = (s: number) => (s % 60 === 0 && s >= 60 ? `${s / 60} min` : `${s} s`);

interface WaitFlags { agent?: string; address?: string; since?: string; timeout: number }

export function register(program: Command): void {
  const wait = program.command('wait')
    .description('Wait for the next message to an agent (or one of its plus addresses) and print it')
    .option('--agent <agent>', 'the receiving agent (id, name or address)')
    .option('--address <address>', 'only mail to this address of the agent (e.g. a plus address)')
    .option('--since <time|rcv_id>', 'return mail received at/after this time or after this message (default: mail arriving from now on)')
    .addOption(new Option('--timeout <duration>', 'give up after this long: 30s, 2m, 1h or plain seconds').argParser(parseDuration).default(60, '60s'))
    .addHelpText('after', [
      '',
      'Prints the message when it arrives (--json: the received message object) and exits 0.',
      'On timeout prints a line on stderr and exits 1. The daemon holds one wait for at most 60 s;',
      'longer timeouts chain several waits from the same starting point, so nothing is missed or',
      'returned twice. Ctrl-C stops waiting (exit 130).',
    ].join('\n'))
    .action(run(async (ctx: CommandContext, o: WaitFlags) => {
      const agent = ctx.require(o.agent, '--agent');
      let since = o.since !== undefined ? checkSince(o.since) : undefined;
      const client = await ctx.client();
      const signal = ctx.signal;
      const deadline = Date.now() + o.timeout * 1000;
      const target = o.address ?? agent;

      // Without --since the daemon starts each wait at "now", so a second wait would miss mail that
      // arrived between two polls. Chained waits instead start after the agent's newest message as
      // of now (ids are time-ordered), or from the beginning when it has none: either way exactly
      // the mail that arrives from here on.
      if (since === undefined && o.timeout > SERVER_MAX_WAIT_S) {
        const newest = await client.call('received.list', { query: { agent_id: agent, limit: 1 }, signal });
        since = newest.data[0]?.id ?? '1970-01-01T00:00:00.000Z';
      }

      let message: ReceivedMessage | null = null;
      try {
        for (let first = true; ; first = false) {
          const left = Math.round((deadline - Date.now()) / 1000);
          if (!first && left <= 0) break;
          const r = await client.call('inbox.wait', {
            params: { id: agent },
            query: { address: o.address, since, timeout: Math.max(0, Math.min(SERVER_MAX_WAIT_S, left)) },
            signal,
          });
          // A timed-out wait returned nothing after `since`, so the next one keeps the same `since`.
          if (r.message) {
            message = r.message;
            break;
          }
          if (signal.aborted) break;
        }
      } catch (err) {
        // Ctrl-C: the SIGINT handler already set exit code 130; end quietly.
        if (signal.aborted) return;
        throw err;
      }
      if (signal.aborted && !message) return;
      if (!message) throw new CliError(`timed out after ${fmt(o.timeout)}: no mail to ${target}`);
      ctx.out.result(message, (m) => printReceived(ctx, m));
    }));
  examples(wait, [
    'mailagent wait --agent agent --timeout 2m',
    'CODE=$(mailagent wait --agent agent --address agent+signup@local.mailagent.localhost --json | jq -r .body_text)',
    'mailagent wait --agent support --since rcv_01j... --timeout 30s',
    'mailagent wait --agent agent --since 2026-03-01T09:00:00Z --timeout 0',
  ]);
}
