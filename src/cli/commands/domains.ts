import type { Command } from 'commander';
import type { DnsRecord, Domain } from '../../contract/domains.js';
import { examples, parseIntOption, run, type CommandContext } from '../context.js';
import { CliError } from '../errors.js';
import type { Column } from '../output.js';

const DOMAIN_COLUMNS: Column<Domain>[] = [
  ['ID', (d) => d.id],
  ['DOMAIN', (d) => d.domain],
  ['STATUS', (d) => d.status],
  ['VERIFIED', (d) => d.verified_at ?? ''],
  ['LAST CHECKED', (d) => d.last_checked_at ?? ''],
  ['CREATED', (d) => d.created_at],
];

const RECORD_COLUMNS: Column<DnsRecord>[] = [
  ['PURPOSE', (r) => r.purpose],
  ['TYPE', (r) => r.type],
  ['NAME', (r) => r.name],
  ['STATUS', (r) => r.status],
  ['VALUE', (r) => r.value],
];

function showDomain(ctx: CommandContext, d: Domain, note?: string): void {
  ctx.out.result(d, () => {
    ctx.out.record({
      id: d.id, domain: d.domain, status: d.status, dkim_selector: d.dkim_selector, verified_at: d.verified_at,
      last_checked_at: d.last_checked_at, last_error: d.last_error, created_at: d.created_at,
    });
    ctx.out.line();
    ctx.out.table(d.records, RECORD_COLUMNS);
    // A record's note: what its value assumes, or why it cannot be right yet (SPF on a loopback-only install).
    for (const r of d.records) if (r.note) ctx.out.info(`${r.purpose}: ${r.note}`);
    if (note) ctx.out.info(note);
  });
}

export function register(program: Command): void {
  const domains = program.command('domains').description('Custom sending domains: add one, publish its DNS records, verify, remove');

  const list = domains.command('list').description('List sending domains')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx: CommandContext, o: { limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      ctx.out.page(await client.call('domains.list', { query: { limit: o.limit, cursor: o.cursor } }), DOMAIN_COLUMNS, 'no sending domains');
    }));
  examples(list, ['mailagent domains list', 'mailagent domains list --json | jq -r ".data[] | [.domain, .status] | @tsv"']);

  const add = domains.command('add').description('Add a sending domain and print the DNS records to publish (TXT: verification, SPF, DKIM)')
    .argument('<domain>', 'e.g. mail.example.com')
    .action(run(async (ctx: CommandContext, domain: string) => {
      const client = await ctx.client();
      const d = await client.call('domains.create', { body: { domain } });
      showDomain(ctx, d, `Publish these TXT records, then run \`mailagent domains verify ${d.domain}\`. Already have an SPF record? Merge ours into it: only one may exist.`);
    }));
  examples(add, ['mailagent domains add mail.example.com', 'mailagent domains add mail.example.com --json | jq -r ".records[] | [.name, .value] | @tsv"']);

  const get = domains.command('get').description('Show a sending domain and its DNS records').argument('<domain>', 'dom_ id or domain name')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      showDomain(ctx, await client.call('domains.get', { params: { id } }));
    }));
  examples(get, ['mailagent domains get mail.example.com', 'mailagent domains get dom_01j... --json']);

  const verify = domains.command('verify')
    .description('Look the DNS records up now; exits 1 while the domain is not verified (so a script can retry)')
    .argument('<domain>', 'dom_ id or domain name')
    .action(run(async (ctx: CommandContext, id: string) => {
      const client = await ctx.client();
      const d = await client.call('domains.verify', { params: { id } });
      showDomain(ctx, d);
      if (d.status !== 'verified') throw new CliError(`${d.domain} is not verified: ${d.last_error ?? 'records not found'}`);
      if (!ctx.out.json) ctx.out.success(`${d.domain} is verified: agents can now be created on it (POST /v1/agents with "domain": "${d.domain}")`);
    }));
  examples(verify, ['mailagent domains verify mail.example.com', 'until mailagent domains verify mail.example.com --quiet; do sleep 300; done']);

  const remove = domains.command('remove').description('Remove a sending domain (refused while live agents send from it)').argument('<domain>', 'dom_ id or domain name')
    .option('--yes', 'do not ask for confirmation')
    .action(run(async (ctx: CommandContext, id: string, o: { yes?: boolean }) => {
      if (!(await ctx.confirm(`Remove sending domain ${id}?`, o.yes))) return;
      const client = await ctx.client();
      const r = await client.call('domains.delete', { params: { id } });
      ctx.out.result(r, () => ctx.out.success(`${r.id} removed`));
    }));
  examples(remove, ['mailagent domains remove mail.example.com --yes']);
}
