import { Option, type Command } from 'commander';
import type { Thread, ThreadMessage, ThreadUpdate } from '../../contract/threads.js';
import { examples, parseIntOption, run, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import type { Column } from '../output.js';

// A copy of contract THREAD_STATUSES so `--help` does not load typebox; the e2e test compares them.
export const THREAD_STATUSES = ['open', 'closed', 'archived'];

const collect = (v: string, prev: string[] = []) => [...prev, v];

const THREAD_COLUMNS: Column<Thread>[] = [
  ['ID', (t) => t.id],
  ['STATUS', (t) => (t.trashed_at ? `${t.status} (trash)` : t.status)],
  ['MSGS', (t) => t.message_count],
  ['LABELS', (t) => t.labels.join(',')],
  ['SUBJECT', (t) => t.subject],
  ['LAST MESSAGE', (t) => t.last_message_at],
];

const MESSAGE_COLUMNS: Column<ThreadMessage>[] = [
  ['ID', (m) => m.id],
  ['DIR', (m) => (m.direction === 'outbound' ? 'out' : 'in')],
  ['FROM', (m) => m.from],
  ['TO', (m) => (Array.isArray(m.to) ? m.to.join(',') : m.to)],
  ['STATUS', (m) => m.status],
  ['AT', (m) => m.sent_at ?? m.received_at ?? m.created_at],
  ['SNIPPET', (m) => m.snippet],
];

function threadRecord(ctx: CommandContext, t: Thread): void {
  ctx.out.record({
    id: t.id, agent_id: t.agent_id, subject: t.subject, status: t.status, labels: t.labels, trashed_at: t.trashed_at,
    participants: t.participants, message_count: t.message_count, last_message_at: t.last_message_at,
    has_live_mail: t.has_live_mail, created_at: t.created_at, updated_at: t.updated_at,
  });
}

const showThread = (ctx: CommandContext, t: Thread) => ctx.out.result(t, () => threadRecord(ctx, t));

export function register(program: Command): void {
  const threads = program.command('threads').description('List, read, label, file, trash and delete conversation threads');

  const list = threads.command('list').description('List threads, most recent first (the trash is left out unless --trashed)')
    .option('--agent <agent>', 'only this agent (id, name or address)')
    .addOption(new Option('--status <status>', 'only threads in this state').choices(THREAD_STATUSES))
    .option('--label <label>', 'only threads with this label')
    .option('--trashed', 'list the trash instead')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx: CommandContext, o: { agent?: string; status?: Thread['status']; label?: string; trashed?: boolean; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('threads.list', {
        query: { agent_id: o.agent, status: o.status, label: o.label, trashed: o.trashed ? true : undefined, limit: o.limit, cursor: o.cursor },
      });
      ctx.out.page(page, THREAD_COLUMNS, o.trashed ? 'the trash is empty' : 'no threads');
    }));
  examples(list, ['mailagent threads list --agent support --status open', 'mailagent threads list --label billing --json | jq -r ".data[].id"', 'mailagent threads list --trashed']);

  const get = threads.command('get').description('Show a thread and its messages, both directions, oldest first').argument('<id>', 'thrd_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      const t = await client.call('threads.get', { params: { id } });
      ctx.out.result(t, () => {
        threadRecord(ctx, t);
        ctx.out.line();
        if (t.messages.length) ctx.out.table(t.messages, MESSAGE_COLUMNS);
        else ctx.out.info('no messages');
      });
    }));
  examples(get, ['mailagent threads get thrd_01j...', 'mailagent threads get thrd_01j... --json | jq -r ".messages[] | [.direction, .from, .subject] | @tsv"']);

  const update = threads.command('update').description('Set a thread\'s labels (replacing the ones it has) or its status').argument('<id>', 'thrd_ id')
    .option('--label <label>', 'label (repeatable; the thread gets exactly these)', collect)
    .option('--clear-labels', 'remove every label from the thread')
    .addOption(new Option('--status <status>', 'new status').choices(THREAD_STATUSES))
    .action(run(async (ctx: CommandContext, id: string, o: { label?: string[]; clearLabels?: boolean; status?: Thread['status'] }) => {
      if (o.label?.length && o.clearLabels) throw new UsageError('--label and --clear-labels cannot be used together');
      const body: ThreadUpdate = {};
      if (o.label?.length) body.labels = o.label;
      if (o.clearLabels) body.labels = [];
      if (o.status) body.status = o.status;
      if (Object.keys(body).length === 0) throw new UsageError('nothing to change: give --label, --clear-labels or --status');
      const client = await ctx.client();
      showThread(ctx, await client.call('threads.update', { params: { id }, body }));
    }));
  examples(update, ['mailagent threads update thrd_01j... --label billing --label urgent', 'mailagent threads update thrd_01j... --status closed', 'mailagent threads update thrd_01j... --clear-labels --json']);

  const trash = threads.command('trash').description('Move a thread to the trash (new mail in it brings it back)').argument('<id>', 'thrd_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      const t = await client.call('threads.trash', { params: { id } });
      ctx.out.result(t, () => ctx.out.success(`${t.id} moved to the trash`));
    }));
  examples(trash, ['mailagent threads trash thrd_01j...']);

  const restore = threads.command('restore').description('Take a thread out of the trash').argument('<id>', 'thrd_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      const t = await client.call('threads.restore', { params: { id } });
      ctx.out.result(t, () => ctx.out.success(`${t.id} restored`));
    }));
  examples(restore, ['mailagent threads restore thrd_01j...']);

  const del = threads.command('delete').description('Delete a thread and all its mail for good (needs the manage scope)').argument('<id>', 'thrd_ id')
    .option('--yes', 'do not ask for confirmation')
    .action(run(async (ctx: CommandContext, id: string, o: { yes?: boolean }) => {
      if (!(await ctx.confirm(`Delete thread ${id} and all its messages for good?`, o.yes))) return;
      const client = await ctx.client();
      const r = await client.call('threads.delete', { params: { id } });
      ctx.out.result(r, () => ctx.out.success(`${r.id} deleted`));
    }));
  examples(del, ['mailagent threads delete thrd_01j... --yes', 'mailagent --live threads delete thrd_01j... --yes']);
}
