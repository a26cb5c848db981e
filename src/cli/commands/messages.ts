import type { Command } from 'commander';
import { parseTime, TIME_HELP } from '../time.js';
import { run, examples, parseIntOption, type CommandContext } from '../context.js';
import { sendBody, printSent, showSent, type SendFlags } from './send.js';
import { saveRawMessage } from '../raw-message.js';
import { isApiError } from '../errors.js';

const collect = (v: string, prev: string[] = []) => [...prev, v];

export function register(program: Command): void {
  const messages = program.command('messages').description('List, inspect, reply to, forward, cancel and reschedule sent messages');

  const list = messages.command('list').description('List sent messages, newest first')
    .option('--agent <agent>', 'only this agent (id, name or address)')
    .option('--thread <thread_id>', 'only this thread')
    .option('--limit <n>', 'page size 1..100', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'page cursor from a previous list')
    .action(run(async (ctx: CommandContext, o: { agent?: string; thread?: string; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('messages.list', { query: { agent_id: o.agent, thread_id: o.thread, limit: o.limit, cursor: o.cursor } });
      ctx.out.page(page, [
        ['ID', (m) => m.id], ['STATUS', (m) => m.status], ['TO', (m) => m.to.join(',')], ['SUBJECT', (m) => m.subject], ['CREATED', (m) => m.created_at],
      ]);
    }));
  examples(list, ['mailagent messages list --agent billing --limit 10', 'mailagent messages list --json | jq -r ".data[].id"']);

  const get = messages.command('get').description('Show one sent message').argument('<id>', 'msg_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      try {
        showSent(ctx, await client.call('messages.get', { params: { id } }));
      } catch (err) {
        // `messages` holds sent mail; a received message (rcv_) lives in the inbox. The API's 404
        // stays as it is (code, request id); the CLI adds where to look instead.
        if (isApiError(err) && err.status === 404 && id.startsWith('rcv_')) {
          err.message = `${id} is a received message: \`mailagent messages get\` shows sent messages (msg_); use \`mailagent inbox get ${id}\``;
        }
        throw err;
      }
    }));
  examples(get, ['mailagent messages get msg_01j...', 'mailagent messages get msg_01j... --json | jq .status']);

  const raw = messages.command('raw').description('Download a message as RFC 822 (.eml) to stdout or a file')
    .argument('<id>', 'msg_ or rcv_ id').option('--output <file>', 'write to this file instead of stdout')
    .action(run(async (ctx: CommandContext, id: string, o: { output?: string }) => {
      await saveRawMessage(ctx, id, o.output);
    }));
  examples(raw, ['mailagent messages raw msg_01j... > message.eml', 'mailagent messages raw rcv_01j... --output original.eml']);

  const reply = messages.command('reply').description('Reply to a sent or received message (Re:, In-Reply-To and References are set for you)')
    .argument('<id>', 'msg_ or rcv_ id')
    .option('--body <text>', 'reply text (or --body-file, or stdin)').option('--body-file <file>', 'read the reply text from a file')
    .option('--html-file <file>', 'HTML body').option('--all', 'reply to all (reply_all)')
    .option('--to <address>', 'override the recipients (repeatable)', collect).option('--cc <address>', 'Cc (repeatable)', collect)
    .option('--attach <file>', 'attach a file (repeatable)', collect).option('--idempotency-key <key>', 'Idempotency-Key')
    .action(run(async (ctx: CommandContext, id: string, o: SendFlags & { all?: boolean }) => {
      const body = await sendBody(ctx, o, { to: false, subject: false });
      if (o.all) body.reply_all = true;
      const client = await ctx.client();
      printSent(ctx, await client.call('messages.reply', { params: { id }, body: body as never, headers: o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {} }));
    }));
  examples(reply, ['mailagent messages reply rcv_01j... --body "Thanks, done."', 'mailagent messages reply rcv_01j... --all --body-file answer.txt']);

  const forward = messages.command('forward').description('Forward a message (Fwd:, the original quoted; always sent at once)')
    .argument('<id>', 'msg_ or rcv_ id').option('--to <address>', 'recipient (repeatable)', collect)
    .option('--body <text>', 'a note above the forwarded message').option('--idempotency-key <key>', 'Idempotency-Key')
    .action(run(async (ctx: CommandContext, id: string, o: { to?: string[]; body?: string; idempotencyKey?: string }) => {
      const to = ctx.require(o.to?.length ? o.to : undefined, '--to');
      const client = await ctx.client();
      const body: Record<string, unknown> = { to, ...(o.body !== undefined ? { body_text: o.body } : {}) };
      printSent(ctx, await client.call('messages.forward', { params: { id }, body: body as never, headers: o.idempotencyKey ? { 'Idempotency-Key': o.idempotencyKey } : {} }));
    }));
  examples(forward, ['mailagent messages forward rcv_01j... --to boss@example.com --body "FYI"']);

  const cancel = messages.command('cancel').description('Cancel a scheduled message').argument('<id>', 'msg_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      const r = await client.call('messages.cancel', { params: { id }, body: {} });
      ctx.out.result(r, () => ctx.out.line(`${r.id} canceled at ${r.canceled_at}`));
    }));
  examples(cancel, ['mailagent messages cancel msg_01j...']);

  const reschedule = messages.command('reschedule').description('Move a scheduled message to another time')
    .argument('<id>', 'msg_ id').requiredOption('--at <time>', `new time: ${TIME_HELP}`)
    .action(run(async (ctx: CommandContext, id: string, o: { at: string }) => {
      const scheduledAt = parseTime('--at', o.at);
      const client = await ctx.client();
      const r = await client.call('messages.reschedule', { params: { id }, body: { scheduled_at: scheduledAt } });
      ctx.out.result(r, () => ctx.out.line(`${r.id} scheduled at ${r.scheduled_at}`));
    }));
  examples(reschedule, ['mailagent messages reschedule msg_01j... --at +3d', 'mailagent messages reschedule msg_01j... --at +2h']);
}
