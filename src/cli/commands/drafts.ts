import { Option, type Command } from 'commander';
import type { Draft, DraftSendResult } from '../../contract/drafts.js';
import { examples, parseIntOption, run, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { parseTime } from '../time.js';
import { readFlagFile, readStdinText } from '../input.js';
import type { Column } from '../output.js';

// A copy of contract DRAFT_STATUSES so `--help` does not load typebox; the e2e test compares them.
export const DRAFT_STATUSES = ['draft', 'scheduled', 'sending', 'sent', 'failed', 'canceled'];

const collect = (v: string, prev: string[] = []) => [...prev, v];

const DRAFT_COLUMNS: Column<Draft>[] = [
  ['ID', (d) => d.id],
  ['STATUS', (d) => d.status],
  ['TO', (d) => d.to.join(',')],
  ['SUBJECT', (d) => d.subject],
  ['SEND AT', (d) => d.send_at ?? ''],
  ['UPDATED', (d) => d.updated_at],
];

export { parseTime } from '../time.js';

interface ContentFlags {
  to?: string[]; cc?: string[]; bcc?: string[]; subject?: string; body?: string; bodyFile?: string; htmlFile?: string;
  inReplyTo?: string; at?: string; sendAt?: string;
}

function contentOptions(cmd: Command): Command {
  return cmd
    .option('--to <address>', 'recipient (repeatable)', collect)
    .option('--cc <address>', 'Cc recipient (repeatable)', collect)
    .option('--bcc <address>', 'Bcc recipient (repeatable)', collect)
    .option('--subject <text>', 'subject line')
    .option('--body <text>', 'plain-text body')
    .option('--body-file <file>', 'read the plain-text body from a file (`-`: stdin)')
    .option('--html-file <file>', 'read an HTML body from a file')
    .option('--in-reply-to <id>', 'the msg_ or rcv_ id this draft answers (threads it)')
    .option('--at <time>', 'schedule: ISO 8601 time or +30m / +2h / +1d (needs the send scope)')
    // The draft field's own name: kept working (scripts written before --at), out of --help.
    .addOption(new Option('--send-at <time>', 'same as --at').hideHelp());
}

/**
 * --at, as `send` and `drafts send` spell it, or its older spelling --send-at; the flag the user
 * typed names any error. Both, naming different times, is a usage error.
 */
function scheduleFlag(o: ContentFlags): { flag: string; value: string } | null {
  if (o.at !== undefined && o.sendAt !== undefined && o.at !== o.sendAt) {
    throw new UsageError(`--at ${o.at} and --send-at ${o.sendAt} name different times; give --at once`);
  }
  if (o.at !== undefined) return { flag: '--at', value: o.at };
  return o.sendAt !== undefined ? { flag: '--send-at', value: o.sendAt } : null;
}

/**
 * The draft fields the flags set. `stdinBody`: on create, a body piped on stdin is used when no
 * body flag is given (like `send`); update never reads stdin unless told (`--body-file -`), so
 * `drafts update ID --subject x` in a script cannot hang on an open pipe.
 */
async function contentBody(o: ContentFlags, stdinBody: boolean): Promise<Record<string, unknown>> {
  const body: Record<string, unknown> = {};
  if (o.to?.length) body.to = o.to;
  if (o.cc?.length) body.cc = o.cc;
  if (o.bcc?.length) body.bcc = o.bcc;
  if (o.subject !== undefined) body.subject = o.subject;
  let text = o.body;
  if (text === undefined && o.bodyFile) text = o.bodyFile === '-' ? await readStdinText() : await readFlagFile(o.bodyFile, { flag: '--body-file' }, 'utf8');
  if (text === undefined && stdinBody && !o.htmlFile && !process.stdin.isTTY) {
    const piped = await readStdinText();
    if (piped !== '') text = piped;
  }
  if (text !== undefined) body.body_text = text;
  if (o.htmlFile) body.body_html = await readFlagFile(o.htmlFile, { flag: '--html-file' }, 'utf8');
  if (o.inReplyTo) body.in_reply_to_message_id = o.inReplyTo;
  const at = scheduleFlag(o);
  if (at) body.send_at = parseTime(at.flag, at.value);
  return body;
}

function showDraft(ctx: CommandContext, d: Draft, created = false): void {
  (created ? ctx.out.created.bind(ctx.out) : ctx.out.result.bind(ctx.out))(d, () => {
    ctx.out.record({
      id: d.id, status: d.status, agent_id: d.agent_id, to: d.to, cc: d.cc, bcc: d.bcc, subject: d.subject,
      send_at: d.send_at, sent_message_id: d.sent_message_id, thread_id: d.thread_id, error_message: d.error_message,
      mode: d.test_mode ? 'test' : 'live', created_at: d.created_at, updated_at: d.updated_at,
    });
    if (d.body_text) ctx.out.line('\n' + d.body_text.replace(/\n$/, ''));
    else if (d.body_html) ctx.out.line('\n' + d.body_html.replace(/\n$/, ''));
  });
}

export function register(program: Command): void {
  const drafts = program.command('drafts').description('Write, edit, schedule and send drafts');

  const list = drafts.command('list').description('List drafts, newest first')
    .option('--agent <agent>', 'only this agent (id, name or address)')
    .addOption(new Option('--status <status>', 'only drafts in this state').choices(DRAFT_STATUSES))
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx: CommandContext, o: { agent?: string; status?: Draft['status']; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('drafts.list', { query: { agent_id: o.agent, status: o.status, limit: o.limit, cursor: o.cursor } });
      ctx.out.page(page, DRAFT_COLUMNS, 'no drafts');
    }));
  examples(list, ['mailagent drafts list --status scheduled', 'mailagent drafts list --agent support --json | jq -r ".data[].id"']);

  const get = drafts.command('get').description('Show one draft (its fields, then its body)').argument('<id>', 'dft_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      showDraft(ctx, await client.call('drafts.get', { params: { id } }));
    }));
  examples(get, ['mailagent drafts get dft_01j...', 'mailagent drafts get dft_01j... --json | jq .status']);

  const create = contentOptions(drafts.command('create')
    .description('Create a draft; nothing is required until it is sent (a body can be piped on stdin)')
    .option('--agent <agent>', 'the agent it will be sent from (id, name or address; default: the only agent)'))
    .action(run(async (ctx: CommandContext, o: ContentFlags & { agent?: string }) => {
      const body = await contentBody(o, true);
      if (o.agent) body.agent = o.agent;
      const client = await ctx.client();
      showDraft(ctx, await client.call('drafts.create', { body: body as never }), true);
    }));
  examples(create, [
    'mailagent drafts create --agent sarah --to bob@example.com --subject "Follow-up" --body "Hi Bob"',
    'echo "Weekly report" | mailagent drafts create --agent agent --to team@example.com --subject Report --at +7d',
    'mailagent drafts create --agent sarah --to bob@example.com --subject Later --body-file note.txt --at +2h --json',
  ]);

  const update = contentOptions(drafts.command('update')
    .description('Edit a draft: only the fields given change (--at schedules it, --unschedule makes it a plain draft again)')
    .argument('<id>', 'dft_ id'))
    .option('--unschedule', 'clear send_at (a scheduled draft goes back to draft)')
    .action(run(async (ctx: CommandContext, id: string, o: ContentFlags & { unschedule?: boolean }) => {
      const at = scheduleFlag(o);
      if (o.unschedule && at) throw new UsageError(`${at.flag} and --unschedule cannot be used together`);
      const body = await contentBody(o, false);
      if (o.unschedule) body.send_at = null;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give at least one of --to, --cc, --bcc, --subject, --body, --body-file, --html-file, --in-reply-to, --at, --unschedule');
      const client = await ctx.client();
      showDraft(ctx, await client.call('drafts.update', { params: { id }, body: body as never }));
    }));
  examples(update, [
    'mailagent drafts update dft_01j... --subject "Updated subject"',
    'mailagent drafts update dft_01j... --at +1d',
    'mailagent drafts update dft_01j... --unschedule --json',
  ]);

  const del = drafts.command('delete').description('Delete a draft (a scheduled draft is canceled)').argument('<id>', 'dft_ id')
    .option('--yes', 'do not ask for confirmation')
    .action(run(async (ctx: CommandContext, id: string, o: { yes?: boolean }) => {
      if (!(await ctx.confirm(`Delete draft ${id}?`, o.yes))) return;
      const client = await ctx.client();
      const r = await client.call('drafts.delete', { params: { id } });
      ctx.out.result(r, () => ctx.out.success(`${r.id} deleted`));
    }));
  examples(del, ['mailagent drafts delete dft_01j... --yes']);

  const send = drafts.command('send').description('Send a draft now, or schedule it with --at (prints the message id)')
    .argument('<id>', 'dft_ id')
    .option('--at <time>', 'send at this time instead: ISO 8601 or +30m / +2h / +1d (a past time sends now)')
    .option('--idempotency-key <key>', 'Idempotency-Key: a retry with the same key never sends twice')
    .action(run(async (ctx: CommandContext, id: string, o: { at?: string; idempotencyKey?: string }) => {
      const body = o.at !== undefined ? { send_at: parseTime('--at', o.at) } : {};
      const client = await ctx.client();
      const r: DraftSendResult = await client.call('drafts.send', {
        params: { id }, body, headers: o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {},
      });
      ctx.out.result(r, () => {
        if (r.message_id) ctx.out.line(r.message_id);
        if (r.status === 'scheduled') ctx.out.success(`${r.id} scheduled for ${r.send_at}`);
        else ctx.out.info(`${r.id} ${r.status}${r.thread_id ? ` (thread ${r.thread_id})` : ''}`);
      });
    }));
  examples(send, ['mailagent drafts send dft_01j...', 'mailagent drafts send dft_01j... --at +2h', 'mailagent drafts send dft_01j... --json | jq -r .message_id']);
}
