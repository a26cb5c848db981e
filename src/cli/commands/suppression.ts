import { Option, type Command } from 'commander';
import type { ConsentAllow, SuppressionCreate, SuppressionEntry, SuppressionLookup } from '../../contract/suppression.js';
import { examples, parseIntOption, run, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import type { Column } from '../output.js';

// A copy of contract SUPPRESSION_TYPES so `--help` does not load typebox; the e2e test compares them.
export const SUPPRESSION_TYPES = ['hard_bounce', 'complaint', 'unsubscribe'];

const ENTRY_COLUMNS: Column<SuppressionEntry>[] = [
  ['ID', (s) => s.id],
  ['ADDRESS', (s) => s.address],
  ['TYPE', (s) => s.type],
  ['SCOPE', (s) => (s.scope === 'agent' ? `agent ${s.agent_id}` : 'workspace')],
  ['ACTIVE', (s) => (s.active ? 'yes' : 'no (allowed)')],
  ['REASON', (s) => s.reason ?? ''],
  ['CREATED', (s) => s.created_at],
];

const ALLOW_COLUMNS: Column<ConsentAllow>[] = [
  ['ID', (a) => a.id],
  ['ADDRESS', (a) => a.address],
  ['ATTESTATION', (a) => a.attestation],
  ['CREATED', (a) => a.created_at],
  ['REVOKED', (a) => a.revoked_at ?? ''],
];

export function register(program: Command): void {
  const suppression = program.command('suppression')
    .description('Look up and manage suppressed addresses (bounces, complaints, unsubscribes) and consent to mail them again');

  const get = suppression.command('get').description('Is this address suppressed? (exit 0 either way; see `suppressed`)')
    .argument('<address>', 'email address')
    .option('--agent <agent>', 'answer for sends from this agent (id, name or address); default: the whole workspace')
    .action(run(async (ctx: CommandContext, address: string, o: { agent?: string }) => {
      const client = await ctx.client();
      const r = await client.call('suppression.get', { query: { address, agent_id: o.agent } }) as SuppressionLookup;
      ctx.out.result(r, () => ctx.out.record({
        address: r.address, suppressed: r.suppressed ? 'yes' : 'no', type: r.type, scope: r.scope, agent_id: r.agent_id, since: r.since,
        allowed: r.allowed ? `${r.allowed.id} (${r.allowed.created_at}): ${r.allowed.attestation}` : null,
      }));
    }));
  examples(get, ['mailagent suppression get bob@example.com', 'mailagent suppression get bob@example.com --agent support --json | jq .suppressed']);

  const list = suppression.command('list').description('List suppression entries, newest first')
    .option('--agent <agent>', 'only entries that concern this agent (id, name or address)')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx: CommandContext, o: { agent?: string; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('suppression.entries', { query: { agent_id: o.agent, limit: o.limit, cursor: o.cursor } });
      ctx.out.page(page, ENTRY_COLUMNS, 'no suppressed addresses');
    }));
  examples(list, ['mailagent suppression list', 'mailagent suppression list --agent support --json | jq -r ".data[].address"']);

  const add = suppression.command('add').description('Suppress an address: no live mail goes to it (for one agent with --agent)')
    .argument('<address>', 'email address')
    .addOption(new Option('--type <type>', 'why').choices(SUPPRESSION_TYPES).default('unsubscribe'))
    .option('--agent <agent>', 'only this agent stops mailing it (default: the whole workspace)')
    .option('--reason <text>', 'a note kept with the entry')
    .action(run(async (ctx: CommandContext, address: string, o: { type: SuppressionCreate['type']; agent?: string; reason?: string }) => {
      const body: SuppressionCreate = { address, type: o.type };
      if (o.agent) body.agent_id = o.agent;
      if (o.reason !== undefined) body.reason = o.reason;
      const client = await ctx.client();
      const s = await client.call('suppression.create', { body });
      ctx.out.result(s, () => ctx.out.line(s.id));
    }));
  add.addHelpText('after', '\nNeeds a live key (--live): a suppression refuses live sends only, so a test key gets 403 live_mode_required.');
  // --live: a suppression refuses live sends only, so a test key (the CLI's default) may not add one (403 live_mode_required).
  examples(add, ['mailagent --live suppression add bob@example.com --reason "asked by phone"', 'mailagent --live suppression add bob@example.com --agent sales --type complaint --json']);

  const allowed = suppression.command('allowed').description('List consent allow entries (addresses allowed again), newest first')
    .option('--include-revoked', 'include entries that were undone')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx: CommandContext, o: { includeRevoked?: boolean; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('suppression.get', {
        query: { include_revoked: o.includeRevoked ? true : undefined, limit: o.limit, cursor: o.cursor },
      }) as { data: ConsentAllow[]; has_more: boolean; next_cursor?: string };
      ctx.out.page(page, ALLOW_COLUMNS, 'no allow entries');
    }));
  examples(allowed, ['mailagent suppression allowed', 'mailagent suppression allowed --include-revoked --json']);

  const allow = suppression.command('allow')
    .description('Allow a suppressed address to be mailed again, recording how they consented (needs an unbound manage key)')
    .argument('<address>', 'email address')
    .option('--attestation <text>', 'how and when the person consented (at least 20 characters)')
    .action(run(async (ctx: CommandContext, address: string, o: { attestation?: string }) => {
      const attestation = ctx.require(o.attestation, '--attestation');
      const client = await ctx.client();
      const a = await client.call('suppression.allow', { body: { address, attestation } });
      ctx.out.result(a, () => ctx.out.line(a.id));
    }));
  allow.addHelpText('after', '\nWith the test key (the default) the entry lifts the suppression for test-mode sends only; --live lifts it for live mail.');
  // --live: an allow entry a test key makes counts for test sends only; live mail needs a live key's.
  examples(allow, [
    'mailagent --live suppression allow bob@example.com --attestation "Bob re-subscribed on our web form on 2026-03-02"',
    'mailagent suppression allow bob@example.com --attestation "Test: Bob re-subscribed on our web form"   # test sends only',
  ]);

  const unallow = suppression.command('unallow').description('Undo a consent allow entry: the suppression blocks again').argument('<id>', 'alw_ id')
    .action(run(async (ctx: CommandContext, id: string) => {
      if (!id.startsWith('alw_')) throw new UsageError(`<id> must be an allow entry id (alw_…), as printed by \`suppression allow\` or \`suppression allowed\`; got "${id}"`);
      const client = await ctx.client();
      const r = await client.call('suppression.allow_revoke', { params: { id } });
      ctx.out.result(r, () => ctx.out.success(`${r.id} revoked at ${r.revoked_at}`));
    }));
  // Undoing an entry a live key made takes a live key, as making it did.
  examples(unallow, ['mailagent --live suppression unallow alw_01j...', 'mailagent suppression unallow alw_01j...   # an entry the test key made']);
}
