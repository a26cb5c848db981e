import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ReceivedMessage } from '../../contract/received.js';
import { examples, run, type CommandContext } from '../context.js';
import { CliError, UsageError } from '../errors.js';
import { parseTime } from '../time.js';
import { printReceived, extractFrom } from './inbox.js';

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

/** A rcv_ id, or a time through the one time parser (cli/time.ts). */
function checkSince(since: string): string {
  return /^rcv_[0-9a-z]+$/i.test(since) ? since : parseTime('--since', since);
}

const fmt = (s: number) => (s % 60 === 0 && s >= 60 ? `${s / 60} min` : `${s} s`);

interface WaitFlags { agent?: string; address?: string; since?: string; timeout: number; extract?: 'code' | 'link'; from?: string; includeQuarantined?: boolean; includeUnauthenticated?: boolean }

/**
 * `--from`: the filter of client/sender.ts, loaded when the command runs (the CLI's cold start
 * imports nothing outside src/cli); a usage error for something neither an address nor a domain.
 */
async function parseFrom(v: string): Promise<(address: string) => boolean> {
  const { senderFilter } = await import('../../client/sender.js');
  const test = senderFilter(v);
  if (!test) throw new UsageError(`--from: "${v}" is neither an address (codes@example.com) nor a domain (example.com)`);
  return test;
}

/** With --address, poll in chunks this long so held mail (never returned by a wait) is noticed soon. */
const HELD_CHECK_S = 5;

export function register(program: Command): void {
  const wait = program.command('wait')
    .description('Wait for the next message to an agent (or one of its plus addresses) and print it')
    .option('--agent <agent>', 'the receiving agent (id, name or address)')
    .option('--address <address>', 'only mail to this address of the agent (e.g. a plus address)')
    .option('--since <time|rcv_id>', 'return mail received at/after this time or after this message (default: mail arriving from now on)')
    .addOption(new Option('--timeout <duration>', 'give up after this long: 30s, 2m, 1h or plain seconds').argParser(parseDuration).default(60, '60s'))
    .addOption(new Option('--extract <what>', 'print only the first one-time code or link of the first message that has one (mail without one is passed over)').choices(['code', 'link']))
    .addOption(new Option('--from <address|domain>', 'only mail from this address, or from this domain and its subdomains (e.g. accounts.example.com); other mail is passed over'))
    .option('--include-quarantined', 'also return quarantined mail (a likely prompt injection); by default it is skipped, with a note on stderr')
    .option('--include-unauthenticated', 'with --extract: also take a code or link from mail whose sender failed authentication (SPF and DKIM failed, or a forged From of this server); by default it is passed over, with a note on stderr')
    .addHelpText('after', [
      '',
      'Prints the message when it arrives (--json: the received message object) and exits 0.',
      'On timeout prints a line on stderr and exits 1. The daemon holds one wait for at most 60 s;',
      'longer timeouts chain several waits from the same starting point, so nothing is missed or',
      'returned twice. Ctrl-C stops waiting (exit 130).',
      '',
      'Mail to a plus address that is held (a sign-in code from a large provider, or past the plan\'s',
      'plus-address limit) is never returned by a wait: wait --address notices the record and says',
      'so (exit 1) instead of timing out silently.',
      '',
      'Quarantined mail (the injection scan flagged it) is skipped unless --include-quarantined:',
      'a line on stderr names each one skipped, and the wait goes on for the next message. --from',
      'passes over mail from other senders. A From address can be forged: check spf_pass/dkim_pass',
      '(--json) before trusting what the mail says. --extract passes over mail whose sender failed',
      'authentication (authentication_failed in --json: SPF and DKIM both failed, or a forged From of',
      'this server\'s own domain) unless --include-unauthenticated; --json prints the value with',
      'spf_pass, dkim_pass and dmarc.',
    ].join('\n'))
    .action(run(async (ctx: CommandContext, o: WaitFlags) => {
      const fromSender = o.from === undefined ? null : await parseFrom(o.from);
      // Loaded only with --extract (the CLI's cold start imports nothing outside src/cli).
      const authFailed = o.extract ? (await import('../../client/sender.js')).authenticationFailed : null;
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

      // Held records to this address that arrive from now on (see held()).
      const startedAt = new Date(Date.now() - 1000).toISOString();
      const held = async () => {
        if (!o.address) return null;
        const page = await client.call('received.list', { query: { agent_id: agent, limit: 25 }, signal });
        const want = o.address.trim().toLowerCase();
        return page.data.find((m) => m.over_limit && m.to.toLowerCase() === want && m.received_at >= (since && !since.startsWith('rcv_') ? since : startedAt)) ?? null;
      };

      let message: ReceivedMessage | null = null;
      const passed = { quarantined: 0, unauthenticated: 0, sender: 0, noValue: 0 };
      try {
        for (let first = true; ; first = false) {
          const left = Math.round((deadline - Date.now()) / 1000);
          if (!first && left <= 0) break;
          const chunk = o.address ? HELD_CHECK_S : SERVER_MAX_WAIT_S;
          const r = await client.call('inbox.wait', {
            params: { id: agent },
            query: { address: o.address, since, timeout: Math.max(0, Math.min(chunk, left)) },
            signal,
          });
          // A timed-out wait returned nothing after `since`, so the next one keeps the same `since`.
          if (r.message) {
            // Passed over: the next wait starts after it (ids are time-ordered), so nothing that
            // arrives meanwhile is missed and the same message is not returned again.
            const m = r.message;
            if (m.quarantined && !o.includeQuarantined) {
              passed.quarantined++;
              const score = m.classification ? ` (injection score ${m.classification.injection_score.toFixed(2)})` : '';
              ctx.out.warn(`skipped ${m.id} from ${m.from.address}: quarantined${score}; --include-quarantined returns it`);
              since = m.id;
              continue;
            }
            if (o.extract && !o.includeUnauthenticated && authFailed!(m)) {
              passed.unauthenticated++;
              ctx.out.warn(`skipped ${m.id} from ${m.from.address}: the sender failed authentication (spf ${m.spf_pass}, dkim ${m.dkim_pass}); --include-unauthenticated takes it`);
              since = m.id;
              continue;
            }
            if (fromSender && !fromSender(m.from.address)) {
              passed.sender++;
              ctx.out.info(`passed over ${m.id} from ${m.from.address} (not --from)`);
              since = m.id;
              continue;
            }
            // With --extract, mail without the wanted code or link is passed over too: `wait --since -5m
            // --extract code` returned the window's oldest message and exited 1 when it had no code
            // (an outside tester), though a later one had it.
            if (o.extract && extractFrom(m, o.extract) === null) {
              passed.noValue++;
              ctx.out.info(`passed over ${m.id} from ${m.from.address} (no ${o.extract === 'code' ? 'one-time code' : 'link'})`);
              since = m.id;
              continue;
            }
            message = m;
            break;
          }
          if (signal.aborted) break;
          const h = await held();
          if (h) {
            // Loaded here, not at start: `mailagent --help` stays on commander and chalk only.
            const { OVER_LIMIT_REASONS } = await import('../../contract/received.js');
            const why = h.over_limit ? OVER_LIMIT_REASONS[h.over_limit] : 'held';
            throw new CliError(`a message to ${h.to} from ${h.from.address} was held, not delivered: ${h.over_limit} (${why}); record ${h.id}`);
          }
        }
      } catch (err) {
        // Ctrl-C: the SIGINT handler already set exit code 130; end quietly.
        if (signal.aborted) return;
        throw err;
      }
      if (signal.aborted && !message) return;
      if (!message) {
        const skipped = [
          passed.quarantined ? `skipped ${passed.quarantined} quarantined` : '',
          passed.unauthenticated ? `skipped ${passed.unauthenticated} whose sender failed authentication` : '',
          passed.sender ? `passed over ${passed.sender} from other senders` : '',
          passed.noValue ? `passed over ${passed.noValue} without a ${o.extract === 'code' ? 'one-time code' : 'link'}` : '',
        ].filter(Boolean).join(', ');
        throw new CliError(`timed out after ${fmt(o.timeout)}: no mail to ${target}${o.from ? ' from the --from sender' : ''}${skipped ? ` (${skipped})` : ''}`);
      }
      if (o.extract) {
        const value = extractFrom(message, o.extract);
        if (value === null) throw new CliError(`${message.id} arrived but holds no ${o.extract === 'code' ? 'one-time code' : 'link'}`);
        ctx.out.result({
          id: message.id, [o.extract]: value, from: message.from.address, spf_pass: message.spf_pass, dkim_pass: message.dkim_pass,
          dmarc: message.dmarc ?? null, authentication_failed: authFailed!(message),
        }, () => ctx.out.line(value));
        return;
      }
      ctx.out.result(message, (m) => printReceived(ctx, m));
    }));
  examples(wait, [
    'mailagent wait --agent agent --timeout 2m',
    'CODE=$(mailagent wait --agent agent --address agent+signup@local.mailagent.localhost --extract code)',
    'LINK=$(mailagent wait --agent agent --extract link --timeout 2m)',
    'mailagent wait --agent support --since rcv_01j... --timeout 30s',
    'mailagent wait --agent agent --since 2026-03-01T09:00:00Z --timeout 0',
    'CODE=$(mailagent wait --agent sarah --from accounts.example.com --extract code --timeout 2m)',
    'mailagent wait --agent agent --extract code --json',
  ]);
}
