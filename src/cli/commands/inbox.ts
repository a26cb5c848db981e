import type { Command } from 'commander';
import type { ReceivedMessage, ReceivedMessageSummary } from '../../contract/received.js';
import { examples, parseIntOption, run, type CommandContext } from '../context.js';
import type { Column } from '../output.js';
import { saveRawMessage } from '../raw-message.js';

/** The FLAGS column: what a reader should notice before opening the message. */
export function flags(m: ReceivedMessageSummary): string {
  const bits: string[] = [];
  if (m.over_limit) bits.push(`over_limit:${m.over_limit}`);
  if (m.quarantined) bits.push('quarantined');
  if (m.classification?.intent) bits.push(m.classification.intent);
  if (m.spf_pass === false && m.dkim_pass === false) bits.push('unauthenticated');
  if (m.test_mode) bits.push('test');
  return bits.join(' ');
}

const fromText = (f: ReceivedMessageSummary['from']) => (f.name ? `${f.name} <${f.address}>` : f.address);
const pass = (v: boolean | null | undefined) => (v == null ? 'not checked' : v ? 'pass' : 'fail');

export const RECEIVED_COLUMNS: Column<ReceivedMessageSummary>[] = [
  ['ID', (m) => m.id],
  ['FROM', (m) => m.from.address],
  ['SUBJECT', (m) => (m.subject.length > 60 ? m.subject.slice(0, 59) + '…' : m.subject)],
  ['RECEIVED', (m) => m.received_at],
  ['FLAGS', (m) => flags(m)],
];

/** The first one-time code or link the classifier found (entities), or null. */
export function extractFrom(m: ReceivedMessage, what: 'code' | 'link'): string | null {
  const e = (m.classification?.entities ?? {}) as { codes?: unknown; urls?: unknown };
  const list = what === 'code' ? e.codes : e.urls;
  return Array.isArray(list) && typeof list[0] === 'string' ? list[0] : null;
}

/** Codes and links for the human view (the usual reason to read a message in a terminal). */
function entityRows(m: ReceivedMessage): Record<string, string> {
  const e = (m.classification?.entities ?? {}) as { codes?: unknown; urls?: unknown };
  const out: Record<string, string> = {};
  if (Array.isArray(e.codes) && e.codes.length) out.codes = e.codes.join(', ');
  if (Array.isArray(e.urls) && e.urls.length) out.links = e.urls.join(' ');
  return out;
}

/**
 * The human view of one received message: a header block like a mail reader's, then the text
 * body. Over-limit records keep no body (docs/inbound.md), so they say so instead.
 */
export function printReceived(ctx: CommandContext, m: ReceivedMessage): void {
  const rec: Record<string, unknown> = {
    id: m.id,
    from: fromText(m.from),
    to: m.to,
    ...(m.to_all.length && (m.to_all.length > 1 || m.to_all[0] !== m.to) ? { to_header: m.to_all.join(', ') } : {}),
    ...(m.cc.length ? { cc: m.cc.join(', ') } : {}),
    subject: m.subject,
    date: m.received_at,
    agent: m.agent_id,
    thread: m.thread_id ?? '',
    message_id: m.message_id ?? '',
    ...(m.in_reply_to ? { in_reply_to: m.in_reply_to } : {}),
    ...(m.in_reply_to_message_id ? { reply_to_sent: m.in_reply_to_message_id } : {}),
    auth: `spf ${pass(m.spf_pass)}, dkim ${pass(m.dkim_pass)}, dmarc ${m.dmarc ?? 'not checked'}${m.trusted_network ? ` (trusted network ${m.trusted_network})` : ''}`,
    ...entityRows(m),
    ...(m.classification ? {
      intent: m.classification.intent,
      injection: `${m.classification.injection_score}${m.classification.injection_categories.length ? ` (${m.classification.injection_categories.join(', ')})` : ''}`,
    } : {}),
    quarantined: m.quarantined ? 'yes' : 'no',
    ...(m.over_limit ? { over_limit: m.over_limit } : {}),
    mode: m.test_mode ? 'test' : 'live',
    source: m.source,
    size: `${m.size} bytes`,
  };
  m.attachments.forEach((a, i) => {
    rec[`attachment ${i + 1}`] = `${a.filename ?? '(unnamed)'}  ${a.content_type}  ${a.size} bytes  sha256:${a.sha256}`;
  });
  ctx.out.record(rec);
  ctx.out.line();
  if (m.over_limit) ctx.out.line(`(not kept: ${m.over_limit}; only the sender, recipient and time are recorded)`);
  else if (m.body_text) ctx.out.line(m.body_text.replace(/\r\n/g, '\n').replace(/\n$/, ''));
  else if (m.body_html) ctx.out.line(`(no text body; HTML body of ${m.body_html.length} characters: use --json or \`mailagent inbox raw ${m.id}\`)`);
  else ctx.out.line('(empty body)');
}

/**
 * The original bytes of a message, unchanged: the client's `raw()` decodes text, which would
 * re-encode 8-bit and invalid UTF-8 mail, so this reads the body as bytes itself.
 */

export function register(program: Command): void {
  const inbox = program.command('inbox').description('List and read received mail (and download the original bytes)');

  const list = inbox.command('list').description('List received messages, newest first (excerpts; `inbox get` for the full message)')
    .option('--agent <agent>', 'only this agent (id, name or address)')
    .option('--thread <thread_id>', 'only this thread')
    .option('--limit <n>', 'page size 1..100', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'page cursor from a previous list')
    .addHelpText('after', '\nFLAGS shows over_limit records, quarantined mail, the classifier\'s intent, mail failing both SPF and DKIM, and test mode.')
    .action(run(async (ctx: CommandContext, o: { agent?: string; thread?: string; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('received.list', { query: { agent_id: o.agent, thread_id: o.thread, limit: o.limit, cursor: o.cursor } });
      ctx.out.page(page, RECEIVED_COLUMNS, 'no received messages');
    }));
  examples(list, [
    'mailagent inbox list --agent support --limit 10',
    'mailagent inbox list --thread thrd_01j...',
    'mailagent inbox list --json | jq -r ".data[] | select(.quarantined) | .id"',
  ]);

  const get = inbox.command('get').description('Show one received message: headers, authentication, classification and the text body')
    .argument('<id>', 'rcv_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      ctx.out.result(await client.call('received.get', { params: { id } }), (m) => printReceived(ctx, m));
    }));
  examples(get, ['mailagent inbox get rcv_01j...', 'mailagent inbox get rcv_01j... --json | jq -r .body_text']);

  const raw = inbox.command('raw').description('Write the original message bytes, exactly as received (RFC 822), to stdout or a file')
    .argument('<id>', 'rcv_ id')
    .option('--output <file>', 'write to this file instead of stdout')
    .action(run(async (ctx: CommandContext, id: string, o: { output?: string }) => {
      await saveRawMessage(ctx, id, o.output);
    }));
  examples(raw, ['mailagent inbox raw rcv_01j... > original.eml', 'mailagent inbox raw rcv_01j... --output original.eml']);
}
