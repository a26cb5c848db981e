import type { Command } from 'commander';
import { readStdinText } from '../input.js';
import { run, examples, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import type { SentMessage } from '../../contract/messages.js';

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
  const { readFile } = await import('node:fs/promises');
  const { basename } = await import('node:path');
  if (need.to) ctx.require(o.to?.length ? o.to : undefined, '--to');
  if (need.subject) ctx.require(o.subject, '--subject');
  let text = o.body;
  if (text === undefined && o.bodyFile) text = await readFile(o.bodyFile, 'utf8');
  if (text === undefined && !process.stdin.isTTY && !o.htmlFile) text = await readStdinText();
  const html = o.htmlFile ? await readFile(o.htmlFile, 'utf8') : undefined;
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
    const t = Date.parse(o.at);
    if (!Number.isFinite(t)) throw new UsageError(`--at "${o.at}" is not a time (use ISO 8601, e.g. 2026-05-01T09:00:00Z)`);
    body.scheduled_at = new Date(t).toISOString();
  }
  const tags = pairs(o.tag, '--tag');
  if (tags.length) body.tags = tags.map(([name, value]) => ({ name, value }));
  const meta = pairs(o.meta, '--meta');
  if (meta.length) body.metadata = Object.fromEntries(meta);
  if (o.attach?.length) {
    body.attachments = await Promise.all(o.attach.map(async (f) => ({ filename: basename(f), content_base64: (await readFile(f)).toString('base64') })));
  }
  return body;
}

export function printSent(ctx: CommandContext, m: SentMessage): void {
  ctx.out.result(m, () => ctx.out.line(m.id));
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
    .option('--at <time>', 'schedule for this time (ISO 8601)')
    .option('--idempotency-key <key>', 'Idempotency-Key: a retry with the same key never sends twice')
    .option('--tag <name=value>', 'tag (repeatable)', collect)
    .option('--meta <key=value>', 'metadata pair (repeatable)', collect)
    .action(run(async (ctx: CommandContext, o: SendFlags) => {
      const body = await sendBody(ctx, o, { to: true, subject: true });
      const client = await ctx.client();
      const headers: Record<string, string> = o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {};
      printSent(ctx, await client.call('messages.create', { body: body as never, headers }));
    }));
  examples(send, [
    'mailagent send --to bob@example.com --subject "Hi" --body "Hello Bob"',
    'echo "Report attached" | mailagent send --to a@x.com --to b@y.com --subject Report --attach report.pdf',
    'mailagent send --agent billing --to bob@example.com --subject Reminder --body-file note.txt --at 2026-05-01T09:00:00Z',
    'mailagent send --to bob@example.com --subject Hi --body Hi --tag kind=welcome --meta user=42 --json',
  ]);
}
