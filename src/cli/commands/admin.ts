import { Argument, type Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { examples, run, type CommandContext } from '../context.js';

const TIERS = ['free', 'pro', 'scale'];

export function register(program: Command): void {
  const admin = program.command('admin').description('Operator actions on the local data directory (no API key needed)');
  const tier = admin
    .command('tier')
    .description('Set the workspace\'s tier (free, pro, scale); a running daemon applies the new caps at once')
    .addArgument(new Argument('<tier>', 'free, pro or scale').choices(['free', 'pro', 'scale']))
    .option('--data-dir <dir>', 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)')
    .action(run(tierAction));
  examples(tier, ['mailagent admin tier pro', 'mailagent admin tier scale --data-dir ./data --json']);

  const connect = admin
    .command('connect-app')
    .description('Approve a connected app; prints its access token (1 hour) and refresh token once')
    .requiredOption('--name <name>', 'the app\'s name, as listed by GET /v1/oauth/grants')
    .option('--access <access>', 'read, send or full_access (default full_access)')
    .option('--data-dir <dir>', 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)')
    .action(run(connectAppAction));
  const purge = admin
    .command('purge')
    .description('Delete mail for good: one agent\'s, or everything older than a date (raw bytes and attachments included; no webhooks)')
    .option('--agent <agent>', 'only this agent\'s messages and events (id, name or address)')
    .option('--before <date>', 'only what is older than this date or time (ISO 8601, e.g. 2026-01-01)')
    .option('--data-dir <dir>', 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)')
    .option('--yes', 'do not ask for confirmation')
    .action(run(purgeAction));
  examples(purge, [
    'mailagent admin purge --before 2026-01-01 --yes',
    'mailagent admin purge --agent sarah --yes --json',
    'mailagent admin purge --agent sarah --before 2026-06-30T00:00:00Z --yes',
  ]);
  const keys = admin.command('keys').description('API keys made on the data directory (for an operator who lost every key)');
  const keysCreate = keys
    .command('create')
    .description('Make an unbound API key on the local data directory and print it once (no API key needed)')
    .option('--name <name>', 'the key\'s name', 'operator key')
    .option('--mode <mode>', 'live or test', 'test')
    .option('--scopes <list>', 'comma-separated: send, read, manage, draft', 'send,read,manage,draft')
    .option('--data-dir <dir>', 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)')
    .action(run(keysCreateAction));
  examples(keysCreate, [
    'mailagent admin keys create',
    'mailagent admin keys create --mode live --name recovery --json | jq -r .key',
    'mailagent admin keys create --scopes read --data-dir ./data',
  ]);

  const rp = admin.command('return-path').description('The keys that sign return paths (bounces+…@ envelope senders): list, rotate, retire');
  const DATA_DIR_HELP = 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)';
  const rpVerbs: [ReturnPathAction['action'], string, string[]][] = [
    ['list', 'List the signing keys: id, made at, and which one signs new return paths (all of them verify)',
      ['mailagent admin return-path list', 'mailagent admin return-path list --json | jq -r \'.keys[] | select(.current) | .id\'']],
    ['rotate', 'Sign new return paths with a new key; older keys keep verifying the reports that come back (a running daemon switches at its next start)',
      ['mailagent admin return-path rotate', 'mailagent admin return-path rotate --json | jq -r .changed']],
    ['retire', 'Stop verifying an old key: reports to the return paths it signed are refused from then on (not the current key: rotate first)',
      ['mailagent admin return-path retire a --yes', 'mailagent admin return-path retire a --yes --json']],
  ];
  for (const [verb, description, lines] of rpVerbs) {
    const cmd = rp.command(verb).description(description).option('--data-dir <dir>', DATA_DIR_HELP);
    if (verb === 'retire') {
      cmd.argument('<id>', 'the key id, as listed').option('--yes', 'do not ask for confirmation')
        .action(run((ctx, id: string, opts: { dataDir?: string; yes?: boolean }) => returnPathAction(ctx, { action: 'retire', id }, opts)));
    } else {
      cmd.action(run((ctx, opts: { dataDir?: string }) => returnPathAction(ctx, { action: verb }, opts)));
    }
    examples(cmd, lines);
  }

  examples(connect, [
    'mailagent admin connect-app --name "Inbox summariser" --access read',
    'mailagent admin connect-app --name crm-sync --json | jq -r .refresh_token',
  ]);
}

const ACCESS = ['read', 'send', 'full_access'];

type ReturnPathAction = { action: 'list' } | { action: 'rotate' } | { action: 'retire'; id: string };

async function returnPathAction(ctx: CommandContext, what: ReturnPathAction, opts: { dataDir?: string; yes?: boolean }): Promise<void> {
  if (what.action === 'retire' && !(await ctx.confirm(`Retire return path key "${what.id}"? Reports to the return paths it signed will be refused.`, opts.yes))) return;
  const config = await loadDataDirConfig(ctx, opts.dataDir);
  const { returnPathKeysInDataDir, ReturnPathKeyError } = await import('../../server/admin.js');
  let result: Awaited<ReturnType<typeof returnPathKeysInDataDir>>;
  try {
    result = await returnPathKeysInDataDir(config, what);
  } catch (err) {
    if (err instanceof ReturnPathKeyError) throw new CliError(err.message);
    throw err;
  }
  if (!result) throw new CliError(`${config.dataDir} is not initialised; run \`mailagent init\` first.`);
  const r = result;
  ctx.out.result(r, () => {
    ctx.out.table(r.keys, [['ID', (k) => k.id], ['MADE', (k) => k.created_at], ['SIGNS NEW', (k) => (k.current ? 'yes' : '')]]);
    if (what.action === 'rotate') ctx.out.success(`New return paths are signed with key ${r.changed}; the older keys keep verifying. A running daemon switches at its next start.`);
    if (what.action === 'retire') ctx.out.success(`Key ${r.changed} retired: reports to the return paths it signed are refused (a running daemon forgets it at its next start).`);
  });
}

/** The data dir's configuration, loaded the way `serve` loads it (flags > env > config file). */
export async function loadDataDirConfig(ctx: CommandContext, dataDir: string | undefined, configFile?: string, ports: { port?: string; smtpPort?: string } = {}) {
  // The server side is loaded only here, as `init` does, so `mailagent --help` stays light.
  const { loadConfig, ConfigError } = await import('../../server/config.js');
  const { VERSION } = await import('../../server/version.js');
  try {
    return loadConfig({ dataDir, config: configFile, port: ports.port, smtpPort: ports.smtpPort }, ctx.env, VERSION);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
}

async function connectAppAction(ctx: CommandContext, opts: { name: string; access?: string; dataDir?: string }): Promise<void> {
  if (!opts.name.trim()) throw new UsageError('--name must not be empty.');
  const access = opts.access ?? 'full_access';
  if (!ACCESS.includes(access)) throw new UsageError(`--access must be one of ${ACCESS.join(', ')}; got "${access}".`);
  const config = await loadDataDirConfig(ctx, opts.dataDir);
  const { connectAppInDataDir } = await import('../../server/admin.js');
  const result = await connectAppInDataDir(config, { name: opts.name, access: access as 'read' | 'send' | 'full_access' });
  if (!result) throw new CliError(`${config.dataDir} is not initialised; run \`mailagent init\` first.`);
  ctx.out.result(result, () => {
    ctx.out.record({
      grant: result.grant.id, app: result.grant.app_name, access: result.grant.access, scope: result.scope,
      access_token: result.access_token, expires_in: `${result.expires_in}s`, refresh_token: result.refresh_token,
    });
    ctx.out.warn('The tokens are shown only this once. Renew with POST /v1/oauth/token {"grant_type":"refresh_token","refresh_token":"..."}; revoke with DELETE /v1/oauth/grants/' + result.grant.id + '.');
  });
}

const SCOPES = ['send', 'read', 'manage', 'draft'] as const;

async function keysCreateAction(ctx: CommandContext, opts: { name: string; mode: string; scopes: string; dataDir?: string }): Promise<void> {
  if (!opts.name.trim()) throw new UsageError('--name must not be empty.');
  if (opts.mode !== 'live' && opts.mode !== 'test') throw new UsageError(`--mode must be live or test; got "${opts.mode}".`);
  const scopes = [...new Set(opts.scopes.split(',').map((x) => x.trim()).filter(Boolean))];
  const bad = scopes.filter((x) => !(SCOPES as readonly string[]).includes(x));
  if (bad.length) throw new UsageError(`--scopes: ${bad.join(', ')} ${bad.length > 1 ? 'are not scopes' : 'is not a scope'}; use ${SCOPES.join(', ')}.`);
  const config = await loadDataDirConfig(ctx, opts.dataDir);
  const { createKeyInDataDir } = await import('../../server/admin.js');
  const key = await createKeyInDataDir(config, { name: opts.name.trim(), mode: opts.mode, scopes: scopes as (typeof SCOPES)[number][] });
  if (!key) throw new CliError(`${config.dataDir} is not initialised; run \`mailagent init\` first.`);
  ctx.out.result(key, () => {
    ctx.out.record({ id: key.id, name: key.name, mode: key.mode, scopes: key.scopes.join(','), key: key.key });
    ctx.out.warn('The key is shown only this once (only its SHA-256 is stored). Use it with --api-key or MAILAGENT_API_KEY.');
  });
}

async function tierAction(ctx: CommandContext, tier: string, opts: { dataDir?: string }): Promise<void> {
  if (!TIERS.includes(tier)) throw new UsageError(`<tier> must be one of ${TIERS.join(', ')}; got "${tier}".`);
  const config = await loadDataDirConfig(ctx, opts.dataDir);
  const { setTierInDataDir } = await import('../../server/admin.js');
  const result = await setTierInDataDir(config, tier);
  if (!result) throw new CliError(`${config.dataDir} is not initialised; run \`mailagent init\` first.`);
  ctx.out.result(result, () => ctx.out.success(`Workspace ${result.workspace_id}: tier ${result.from} → ${result.tier}.`));
}

async function purgeAction(ctx: CommandContext, opts: { agent?: string; before?: string; dataDir?: string; yes?: boolean }): Promise<void> {
  if (!opts.agent && !opts.before) throw new UsageError('say what to purge: --agent A, --before DATE, or both.');
  let before: string | null = null;
  if (opts.before !== undefined) {
    const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(opts.before.trim()) ? Date.parse(opts.before.trim()) : NaN;
    if (!Number.isFinite(ms)) throw new UsageError(`--before must be an ISO 8601 date or time (2026-01-01 or 2026-01-01T12:00:00Z); got "${opts.before}".`);
    before = new Date(ms).toISOString();
  }
  const what = [opts.agent ? `agent ${opts.agent}'s` : 'all', 'messages', before ? `older than ${before}` : ''].filter(Boolean).join(' ');
  if (!(await ctx.confirm(`Delete ${what} for good?`, opts.yes))) return;
  const config = await loadDataDirConfig(ctx, opts.dataDir);
  const { purgeInDataDir, AgentLookupError } = await import('../../server/admin.js');
  let result: Awaited<ReturnType<typeof purgeInDataDir>>;
  try {
    result = await purgeInDataDir(config, { agent: opts.agent ?? null, before });
  } catch (err) {
    if (err instanceof AgentLookupError) throw new CliError(err.message);
    throw err;
  }
  if (!result) throw new CliError(`${config.dataDir} is not initialised; run \`mailagent init\` first.`);
  const r = result;
  ctx.out.result(r, () => ctx.out.success(`Purged ${r.received} received and ${r.sent} sent message(s), ${r.threads} emptied thread(s), ${r.events} event(s); ${r.pagesFreed} page(s) returned to the filesystem.`));
}
