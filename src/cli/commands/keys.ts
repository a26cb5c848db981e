import { Option, type Command } from 'commander';
import type { ApiKey, ApiKeyCreate } from '../../contract/api-keys.js';
import { UsageError } from '../errors.js';
import { examples, parseIntOption, parseList, run, type CommandContext } from '../context.js';
import { parseTime, TIME_HELP } from '../time.js';
import type { Column } from '../output.js';

// Kept here rather than imported from contract so `--help` does not load typebox.
const SCOPES = ['send', 'read', 'manage', 'draft'] as const;
type Scope = (typeof SCOPES)[number];

const KEY_COLUMNS: Column<ApiKey>[] = [
  ['ID', (k) => k.id],
  ['NAME', (k) => k.name],
  ['PREFIX', (k) => k.prefix],
  ['MODE', (k) => k.mode],
  ['SCOPES', (k) => k.scopes.join(',')],
  ['AGENT', (k) => k.agent_id ?? ''],
  ['STATUS', (k) => (k.revoked_at ? 'revoked' : k.expires_at && Date.parse(k.expires_at) <= Date.now() ? 'expired' : 'active')],
  ['LAST USED', (k) => k.last_used_at ?? 'never'],
];

interface CreateOptions {
  name?: string;
  scopes?: string[];
  mode?: string;
  agent?: string;
  expiresAt?: string;
}

function checkScopes(list: string[]): Scope[] {
  const bad = list.filter((s) => !(SCOPES as readonly string[]).includes(s));
  if (bad.length) throw new UsageError(`--scopes: unknown scope ${bad.map((b) => `"${b}"`).join(', ')} (known: ${SCOPES.join(', ')})`);
  return [...new Set(list)] as Scope[];
}

/** The mode of the key in use (`mk_live_…` / `mk_test_…`): a new key defaults to it. */
function callerMode(ctx: CommandContext): 'live' | 'test' {
  const key = ctx.connection().apiKey ?? '';
  return key.startsWith('mk_live_') ? 'live' : 'test';
}

async function collect(ctx: CommandContext, o: CreateOptions): Promise<ApiKeyCreate> {
  let { name, scopes, mode } = o;
  if (mode !== undefined && mode !== 'live' && mode !== 'test') throw new UsageError('--mode must be live or test');
  // Prompt for what is missing, on a TTY only; otherwise a missing value is a usage error.
  if (ctx.interactive && !ctx.out.json && (name === undefined || scopes === undefined)) {
    const p = await ctx.prompt();
    name ??= await p.input({ message: 'Key name', required: true, validate: (v) => (v.trim() ? true : 'a name is required') });
    scopes ??= await p.checkbox({
      message: 'Scopes',
      choices: SCOPES.map((s) => ({ value: s, checked: s === 'send' || s === 'read' })),
    });
    if (o.mode === undefined) {
      mode = await p.select({ message: 'Mode', default: callerMode(ctx), choices: [{ value: 'test' }, { value: 'live' }] });
    }
  }
  const body: ApiKeyCreate = {
    name: ctx.require(name, '--name'),
    scopes: checkScopes(ctx.require(scopes, '--scopes (e.g. --scopes send,read)')),
    mode: (mode ?? callerMode(ctx)) as 'live' | 'test',
  };
  if (o.agent) body.agent_id = o.agent;
  if (o.expiresAt) body.expires_at = parseTime('--expires-at', o.expiresAt);
  return body;
}

export function register(program: Command): void {
  const keys = program.command('keys').description('Create, list and revoke API keys');

  const list = keys
    .command('list')
    .description('List API keys, newest first (never with plaintext)')
    .option('--limit <n>', 'page size 1..100 (default 25)', parseIntOption('--limit', 1, 100))
    .option('--cursor <cursor>', 'continue after a previous page')
    .action(run(async (ctx, o: { limit?: number; cursor?: string }) => {
      const client = await ctx.client();
      ctx.out.page(await client.call('api_keys.list', { query: { limit: o.limit, cursor: o.cursor } }), KEY_COLUMNS, 'no keys');
    }));
  examples(list, ['mailagent keys list', 'mailagent keys list --live --json']);

  const create = keys
    .command('create')
    .description('Create an API key; the plaintext key is printed once. Prompts for missing values on a terminal')
    .option('--name <name>', 'a name to recognise the key by')
    .option('--scopes <scopes>', `comma-separated subset of ${SCOPES.join(',')}`, parseList)
    .addOption(new Option('--mode <mode>', 'key mode (default: the mode of the key in use)').choices(['live', 'test']))
    .option('--agent <agent>', 'bind the key to one agent (id, name or address)')
    .option('--expires-at <time>', `expiry: ${TIME_HELP} (default: never)`)
    .action(run(async (ctx, o: CreateOptions) => {
      const body = await collect(ctx, o);
      const client = await ctx.client();
      const key = await client.call('api_keys.create', { body });
      ctx.out.result(key, (k) => {
        ctx.out.line(k.key);
        ctx.out.info(`created ${k.mode} key "${k.name}" (${k.id}, scopes ${k.scopes.join(',') || 'none'}${k.agent_id ? `, agent ${k.agent_id}` : ''}); it is shown once`);
      });
    }));
  examples(create, [
    'mailagent keys create --name ci --scopes send,read',
    'mailagent keys create --name sarah-bot --scopes send --agent sarah --json',
    'mailagent keys create --live --name prod --scopes send,read,manage --mode live --expires-at +90d',
  ]);

  const revoke = keys
    .command('revoke')
    .description('Revoke an API key at once (idempotent)')
    .argument('<id>', 'key id (key_…)')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(run(async (ctx, id: string, o: { yes?: boolean }) => {
      if (!(await ctx.confirm(`Revoke key ${id}? Requests with it will fail at once`, o.yes))) {
        ctx.out.info('not revoked');
        return;
      }
      const client = await ctx.client();
      const res = await client.call('api_keys.revoke', { params: { id } });
      ctx.out.result(res, (r) => ctx.out.success(`revoked ${r.id} at ${r.revoked_at}`));
    }));
  examples(revoke, ['mailagent keys revoke key_01J… --yes']);
}
