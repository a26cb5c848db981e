import type { Command } from 'commander';
import type { Label } from '../../contract/threads.js';
import { examples, parseIntOption, run, type CommandContext } from '../context.js';
import type { Column } from '../output.js';

const LABEL_COLUMNS: Column<Label>[] = [
  ['ID', (l) => l.id],
  ['NAME', (l) => l.name],
  ['CREATED', (l) => l.created_at],
];

export function register(program: Command): void {
  const labels = program.command('labels').description('Manage the workspace\'s thread labels (put them on threads with `threads update --label`)');

  const list = labels.command('list').description('List labels')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx: CommandContext, o: { limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      ctx.out.page(await client.call('labels.list', { query: { limit: o.limit, cursor: o.cursor } }), LABEL_COLUMNS, 'no labels');
    }));
  examples(list, ['mailagent labels list', 'mailagent labels list --json | jq -r ".data[].name"']);

  const create = labels.command('create').description('Create a label (agent-bound keys cannot)').argument('<name>', 'label name (1-64 characters)')
    .action(run(async (ctx: CommandContext, name: string) => {
      const client = await ctx.client();
      const l = await client.call('labels.create', { body: { name } });
      ctx.out.result(l, () => ctx.out.line(l.id));
    }));
  examples(create, ['mailagent labels create billing', 'mailagent labels create "waiting on customer" --json']);

  const rename = labels.command('rename').description('Rename a label, on every thread too').argument('<label>', 'lbl_ id or current name').argument('<new-name>', 'new name')
    .action(run(async (ctx: CommandContext, id: string, name: string) => {
      const client = await ctx.client();
      const l = await client.call('labels.update', { params: { id }, body: { name } });
      ctx.out.result(l, () => ctx.out.success(`${l.id} renamed to ${l.name}`));
    }));
  examples(rename, ['mailagent labels rename billing invoices', 'mailagent labels rename lbl_01j... invoices --json']);

  const del = labels.command('delete').description('Delete a label (it is removed from every thread)').argument('<label>', 'lbl_ id or name')
    .option('--yes', 'do not ask for confirmation')
    .action(run(async (ctx: CommandContext, id: string, o: { yes?: boolean }) => {
      if (!(await ctx.confirm(`Delete label ${id} and remove it from every thread?`, o.yes))) return;
      const client = await ctx.client();
      const r = await client.call('labels.delete', { params: { id } });
      ctx.out.result(r, () => ctx.out.success(`${r.id} deleted`));
    }));
  examples(del, ['mailagent labels delete invoices --yes']);
}
