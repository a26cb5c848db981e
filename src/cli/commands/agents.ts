import { Option, type Command } from 'commander';
import type { Agent, AgentCreate, AgentUpdate } from '../../contract/agents.js';
import { UsageError } from '../errors.js';
import { examples, parseIntOption, parseList, run, type CommandContext } from '../context.js';
import type { Column } from '../output.js';

const STATUSES = ['live', 'all', 'active', 'paused', 'archived'];

export const AGENT_COLUMNS: Column<Agent>[] = [
  ['ID', (a) => a.id],
  ['NAME', (a) => a.name],
  ['EMAIL', (a) => a.email],
  ['STATUS', (a) => a.status],
  ['CREATED', (a) => a.created_at],
];

interface SettingsOptions {
  displayName?: string;
  dailySendLimit?: string;
  hourlySendLimit?: string;
  classifyInbound?: boolean;
  allowlistDomains?: string[];
  blocklistDomains?: string[];
}

/** Flags shared by create and update; a limit of `none` clears it (null). */
function settingsOptions(cmd: Command): Command {
  return cmd
    .option('--display-name <name>', 'display name used in From headers')
    .option('--daily-send-limit <n|none>', 'recipients per day for this agent (`none`: no agent cap)')
    .option('--hourly-send-limit <n|none>', 'recipients per hour for this agent (`none`: no agent cap)')
    .option('--classify-inbound', 'classify inbound mail (default)')
    .option('--no-classify-inbound', 'do not classify inbound mail')
    .option('--allowlist-domains <domains>', 'only these recipient domains (comma-separated, repeatable)', parseList)
    .option('--blocklist-domains <domains>', 'never these recipient domains (comma-separated, repeatable)', parseList);
}

function limit(flag: string, v: string | undefined): number | null | undefined {
  if (v === undefined) return undefined;
  if (v === 'none') return null;
  return parseIntOption(flag, 0, 10_000_000)(v); // the contract's SendLimit range
}

function settings(o: SettingsOptions): AgentUpdate {
  const body: AgentUpdate = {};
  try {
    if (o.displayName !== undefined) body.display_name = o.displayName;
    const d = limit('--daily-send-limit', o.dailySendLimit);
    if (d !== undefined) body.daily_send_limit = d;
    const h = limit('--hourly-send-limit', o.hourlySendLimit);
    if (h !== undefined) body.hourly_send_limit = h;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  if (o.classifyInbound !== undefined) body.classify_inbound = o.classifyInbound;
  if (o.allowlistDomains) body.allowlist_domains = o.allowlistDomains;
  if (o.blocklistDomains) body.blocklist_domains = o.blocklistDomains;
  return body;
}

function showAgent(ctx: CommandContext, a: Agent, created = false): void {
  (created ? ctx.out.created.bind(ctx.out) : ctx.out.result.bind(ctx.out))(a, () =>
    ctx.out.record({
      id: a.id, name: a.name, email: a.email, status: a.status, display_name: a.display_name,
      daily_send_limit: a.daily_send_limit ?? 'none', hourly_send_limit: a.hourly_send_limit ?? 'none',
      classify_inbound: a.classify_inbound, allowlist_domains: a.allowlist_domains, blocklist_domains: a.blocklist_domains,
      created_at: a.created_at, updated_at: a.updated_at, archived_at: a.archived_at,
    }));
}

export function register(program: Command): void {
  const agents = program.command('agents').description('Create, list and change agents (email identities)');

  const list = agents
    .command('list')
    .description('List agents, newest first')
    .addOption(new Option('--status <status>', 'which agents (default: live, meaning all but archived)').choices(STATUSES))
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx, o: { status?: string; limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      const page = await client.call('agents.list', {
        query: { status: o.status as 'live' | undefined, limit: o.limit, cursor: o.cursor },
      });
      ctx.out.page(page, AGENT_COLUMNS, 'no agents');
    }));
  examples(list, ['mailagent agents list', 'mailagent agents list --status all --json | jq -r ".data[].email"']);

  const create = settingsOptions(
    agents
      .command('create')
      .description('Create an agent; its address is <name>@<workspace>.<domain>')
      .argument('<name>', 'lower-case local part of the address: letters, digits, ".", "_", "-"')
      .option('--domain <domain>', 'a verified custom sending domain (see `mailagent domains`) for the address'),
  ).action(run(async (ctx, name: string, o: SettingsOptions & { domain?: string }) => {
    const client = await ctx.client();
    const body: AgentCreate = { name, ...(settings(o) as Omit<AgentCreate, 'name'>), ...(o.domain ? { domain: o.domain } : {}) };
    const agent = await client.call('agents.create', { body });
    if (!ctx.out.json) ctx.out.success(`created ${agent.email}`);
    showAgent(ctx, agent, true);
  }));
  examples(create, [
    'mailagent agents create sarah',
    'mailagent agents create billing --display-name "Billing bot" --daily-send-limit 200',
    'mailagent agents create support --domain mail.example.com',
  ]);

  const get = agents
    .command('get')
    .description('Show an agent')
    .argument('<agent>', 'id, name or address')
    .action(run(async (ctx, ref: string) => {
      const client = await ctx.client();
      showAgent(ctx, await client.call('agents.get', { params: { id: ref } }));
    }));
  examples(get, ['mailagent agents get sarah', 'mailagent agents get agt_01J… --json']);

  const update = settingsOptions(
    agents.command('update').description('Change an agent\'s settings').argument('<agent>', 'id, name or address'),
  ).action(run(async (ctx, ref: string, o: SettingsOptions) => {
    const body = settings(o);
    if (Object.keys(body).length === 0) throw new UsageError('nothing to change: pass at least one flag (see --help)');
    const client = await ctx.client();
    const agent = await client.call('agents.update', { params: { id: ref }, body });
    if (!ctx.out.json) ctx.out.success(`updated ${agent.email}`);
    showAgent(ctx, agent);
  }));
  examples(update, ['mailagent agents update sarah --hourly-send-limit 20', 'mailagent agents update sarah --daily-send-limit none --no-classify-inbound']);

  for (const [verb, status, text] of [['pause', 'paused', 'Pause an agent: its sends answer 422 agent_paused'], ['resume', 'active', 'Resume a paused agent']] as const) {
    const c = agents
      .command(verb)
      .description(text)
      .argument('<agent>', 'id, name or address')
      .action(run(async (ctx, ref: string) => {
        const client = await ctx.client();
        const agent = await client.call('agents.update', { params: { id: ref }, body: { status } });
        if (!ctx.out.json) ctx.out.success(`${agent.email} is ${agent.status}`);
        showAgent(ctx, agent);
      }));
    examples(c, [`mailagent agents ${verb} sarah`]);
  }

  const archive = agents
    .command('archive')
    .description('Archive an agent for good: the address can never be reused (cannot be undone)')
    .argument('<agent>', 'id, name or address')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(run(async (ctx, ref: string, o: { yes?: boolean }) => {
      if (!(await ctx.confirm(`Archive agent ${ref}? This cannot be undone`, o.yes))) {
        ctx.out.info('not archived');
        return;
      }
      const client = await ctx.client();
      const res = await client.call('agents.archive', { params: { id: ref } });
      ctx.out.result(res, (r) => ctx.out.success(`archived ${r.id} at ${r.archived_at}`));
    }));
  examples(archive, ['mailagent agents archive sarah --yes']);
}
