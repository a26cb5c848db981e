import type { Command } from 'commander';
import { readFlagFile, readStdinText } from '../input.js';
import { run, examples, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseTime, TIME_HELP } from '../time.js';
import type { SentMessage } from '../../contract/messages.js';
import type { Client } from '../../client/index.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `--tag name=value` / `--meta key=value` → pairs. */
function pairs(list: string[] | undefined, flag: string): [string, string][] {
  return (list ?? []).map((s) => {
    const i = s.indexOf('=');
    if (i <= 0) throw new UsageError(`${flag} takes name=value, got "${s}"`);
    return [s.slice(0, i), s.slice(i + 1)];
  });
}


export interface SendFlags {
  to?: string[]; cc?: string[]; bcc?: string[]; subject?: string; body?: string; bodyFile?: string; htmlFile?: string;
  attach?: string[]; agent?: string; at?: string; idempotencyKey?: string; tag?: string[]; meta?: string[];
}

/** Build a send request from flags (shared with `messages reply|forward`). */
export async function sendBody(ctx: CommandContext, o: SendFlags, need: { to: boolean; subject: boolean }): Promise<Record<string, unknown>> {
  const { basename } = await import('node:path');
  if (need.to) ctx.require(o.to?.length ? o.to : undefined, '--to');
  if (need.subject) ctx.require(o.subject, '--subject');
  let text = o.body;
  if (text === undefined && o.bodyFile) text = await readFlagFile(o.bodyFile, { flag: '--body-file' }, 'utf8');
  if (text === undefined && !process.stdin.isTTY && !o.htmlFile) {
    text = await readStdinText();
    // A script whose pipe produced nothing must not send a blank message; an empty body is said with --body "".
    if (!text.trim()) throw new UsageError('the body on stdin is empty: pipe the text in, or pass --body "" to send an empty message on purpose');
  }
  const html = o.htmlFile ? await readFlagFile(o.htmlFile, { flag: '--html-file' }, 'utf8') : undefined;
  if (text === undefined && html === undefined) throw new UsageError('missing --body, --body-file, --html-file or a body on stdin');
  const body: Record<string, unknown> = {};
  if (o.to?.length) body.to = o.to;
  if (o.cc?.length) body.cc = o.cc;
  if (o.bcc?.length) body.bcc = o.bcc;
  if (o.subject !== undefined) body.subject = o.subject;
  if (text !== undefined) body.body_text = text;
  if (html !== undefined) body.body_html = html;
  if (o.agent) body.agent = o.agent;
  if (o.at) {
    body.scheduled_at = parseTime('--at', o.at);
    // The API sends at once a message whose scheduled_at is not in the future (spec): a year typed
    // wrong would send now. The CLI asks for what was meant instead.
    if (Date.parse(body.scheduled_at as string) <= Date.now()) {
      throw new UsageError(`--at ${o.at} is in the past (${body.scheduled_at as string}); give a future time (e.g. --at +2h), or leave --at out to send now`);
    }
  }
  const tags = pairs(o.tag, '--tag');
  if (tags.length) body.tags = tags.map(([name, value]) => ({ name, value }));
  const meta = pairs(o.meta, '--meta');
  if (meta.length) body.metadata = Object.fromEntries(meta);
  if (o.attach?.length) {
    body.attachments = await Promise.all(o.attach.map(async (f) => ({ filename: basename(f), content_base64: (await readFlagFile(f, { flag: '--attach' })).toString('base64') })));
  }
  return body;
}

export function printSent(ctx: CommandContext, m: SentMessage): void {
  ctx.out.result(m, () => ctx.out.line(m.id));
  // A test-key send the cold screen would refuse in live mode succeeds with a warning (spec):
  // say so on stderr, so exit 0 and the printed id do not hide it (--quiet silences it).
  const w = m.classifier_warning;
  if (w && !ctx.out.quiet) {
    ctx.out.stderr.write(`${ctx.out.ce.yellow('warning:')} a live key would be refused: ${w.code} (${w.reason}, score ${w.score}). ${w.message}\n`);
  }
}

/** The human view of one sent message: tags and attachments written out, not as objects. */
export function showSent(ctx: CommandContext, m: SentMessage): void {
  ctx.out.result(m, () => {
    ctx.out.record({
      id: m.id, status: m.status, from: m.from, to: m.to.join(', '),
      ...(m.cc?.length ? { cc: m.cc.join(', ') } : {}), ...(m.bcc?.length ? { bcc: m.bcc.join(', ') } : {}),
      subject: m.subject, agent: m.agent_id, thread: m.thread_id, mode: m.test_mode ? 'test' : 'live',
      routing_pool: m.routing_pool, classifier_score: m.classifier_score, cost_usd: m.cost_usd,
      ...(m.scheduled_at ? { scheduled_at: m.scheduled_at } : {}), ...(m.sent_at ? { sent_at: m.sent_at } : {}),
      ...(m.delivered_at ? { delivered_at: m.delivered_at } : {}), ...(m.canceled_at ? { canceled_at: m.canceled_at } : {}),
      ...(m.error_message ? { error: m.error_message } : {}),
      ...(m.in_reply_to_message_id ? { in_reply_to: m.in_reply_to_message_id } : {}),
      ...(m.forwarded_from ? { forwarded_from: m.forwarded_from } : {}),
      tags: m.tags.map((t) => `${t.name}=${t.value}`).join(', '),
      ...(m.metadata && Object.keys(m.metadata).length ? { metadata: Object.entries(m.metadata).map(([k, v]) => `${k}=${v}`).join(', ') } : {}),
      created_at: m.created_at,
    });
    (m.attachments ?? []).forEach((a, i) => ctx.out.record({ [`attachment ${i + 1}`]: `${a.filename}  ${a.content_type}  ${a.size} bytes` }));
    if (m.body_text) ctx.out.line('\n' + m.body_text.replace(/\r\n/g, '\n').replace(/\n$/, ''));
  });
}

/**
 * Without --agent the API sends from the workspace's only live agent (or the key's own); with
 * several it refuses (missing_field, exit 1). The CLI says so first, as the usage error it is
 * (exit 2), naming the agents to choose from. A key that may not list agents leaves it to the API.
 */
async function requireAgentChoice(client: Client): Promise<void> {
  let names: string[];
  let more: boolean;
  try {
    const page = await client.call('agents.list', { query: { limit: 20 } });
    names = page.data.map((a) => a.name);
    more = page.has_more;
  } catch {
    return;
  }
  if (names.length < 2) return;
  throw new UsageError(`missing --agent: this workspace has ${more ? 'more than ' + names.length : names.length} live agents (${names.join(', ')}${more ? ', …' : ''}); say which one sends, e.g. --agent ${names[0]}`);
}

export function register(program: Command): void {
  const send = program
    .command('send')
    .description('Send a message from an agent (prints the message id; --json prints the whole object)')
    .option('--to <address>', 'recipient (repeatable)', collect)
    .option('--cc <address>', 'Cc recipient (repeatable)', collect)
    .option('--bcc <address>', 'Bcc recipient (repeatable)', collect)
    .option('--subject <text>', 'subject line')
    .option('--body <text>', 'plain-text body (or --body-file, or pipe it on stdin)')
    .option('--body-file <file>', 'read the plain-text body from a file')
    .option('--html-file <file>', 'read an HTML body from a file')
    .option('--attach <file>', 'attach a file (repeatable)', collect)
    .option('--agent <agent>', 'sending agent (name, address or id)')
    .option('--at <time>', `schedule for this time: ${TIME_HELP}`)
    .option('--idempotency-key <key>', 'Idempotency-Key: a retry with the same key never sends twice')
    .option('--tag <name=value>', 'tag (repeatable)', collect)
    .option('--meta <key=value>', 'metadata pair (repeatable)', collect)
    .action(run(async (ctx: CommandContext, o: SendFlags) => {
      const body = await sendBody(ctx, o, { to: true, subject: true });
      const client = await ctx.client();
      if (!o.agent) await requireAgentChoice(client);
      const headers: Record<string, string> = o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {};
      printSent(ctx, await client.call('messages.create', { body: body as never, headers }));
    }));
  examples(send, [
    'mailagent send --agent agent --to bob@example.com --subject "Hi" --body "Hello Bob"',
    'echo "Report attached" | mailagent send --agent agent --to a@x.com --to b@y.com --subject Report --attach report.pdf',
    'mailagent send --agent billing --to bob@example.com --subject Reminder --body-file note.txt --at +1d',
    'mailagent send --agent sarah --to bob@example.com --subject Hi --body Hi --at +7d --tag kind=welcome --meta user=42 --json',
  ]);
}
