import type { Command } from 'commander';
import type { Agent } from '../../contract/agents.js';
import type { ApiKeyCreated } from '../../contract/api-keys.js';
import type { Workspace } from '../../contract/me.js';
import { CliError, UsageError } from '../errors.js';
import { examples, run, type CommandContext } from '../context.js';
import type { Output } from '../output.js';
import { DEFAULT_PROFILE, describeLocation, profileOwner, saveNewProfile, savedProfileText } from '../profiles.js';

/** What init prints with --json (the bootstrap result, unchanged). */
export interface BootstrapResult {
  workspace: Workspace;
  agent: Agent;
  keys: { live: ApiKeyCreated; test: ApiKeyCreated };
}

interface InitOptions {
  dataDir?: string;
  workspace?: string;
  displayName?: string;
  domain?: string;
  database?: string;
}

export function register(program: Command): void {
  const cmd = program
    .command('init')
    .description('Create the database, a workspace, a default agent and a live + test owner key; save a CLI profile')
    .option('--data-dir <dir>', 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)')
    .option('--workspace <slug>', 'workspace slug, used in agent addresses (default: local)')
    .option('--display-name <name>', 'workspace display name (default: the slug)')
    .option('--domain <domain>', 'agent domain (default: mailagent.localhost); saved in <data dir>/config.json')
    .option('--database <url>', 'create the schema and the workspace in this PostgreSQL database instead of SQLite in the data dir [env MAILAGENT_DATABASE_URL]')
    .action(run(initAction));
  examples(cmd, [
    'mailagent init',
    'mailagent init --data-dir ./data --workspace acme --json',
    'mailagent init --domain agents.example.com',
    'mailagent init --database postgres://mailagent:secret@db.internal/mailagent --workspace acme',
  ]);
}

async function initAction(ctx: CommandContext, opts: InitOptions): Promise<void> {
  // The server side is loaded only here, so `mailagent --help` never loads SQLite or fastify.
  const { loadConfig, ConfigError } = await import('../../server/config.js');
  const { initialiseDataDir } = await import('../../server/daemon.js');
  const { VERSION } = await import('../../server/version.js');
  const { existsSync, readFileSync, writeFileSync, mkdirSync } = await import('node:fs');
  const { join } = await import('node:path');

  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ dataDir: opts.dataDir, domain: opts.domain, databaseUrl: opts.database }, ctx.env, VERSION);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  let result: BootstrapResult | null;
  try {
    result = await initialiseDataDir(config, { slug: opts.workspace, displayName: opts.displayName });
  } catch (err) {
    const e = err as { name?: string; status?: number; message: string };
    if (e.name === 'ApiError' && e.status === 400) throw new UsageError(`--workspace: ${e.message}`);
    throw err;
  }
  if (!result) {
    if (config.database.kind === 'postgres') throw new CliError('that database is already initialised (it holds a workspace); start daemons on it with `mailagent serve --database …`');
    throw new CliError(`${config.dataDir} is already initialised (it holds a workspace); start it with \`mailagent serve --data-dir ${config.dataDir}\` or choose another --data-dir`);
  }

  // Persist --domain so a later `serve` on this data dir uses the same agent domain. A PostgreSQL
  // database has no data dir of its own (each daemon host has its own): its daemons are told.
  if (opts.domain && config.database.kind === 'postgres') {
    ctx.out.info(`Pass --domain ${config.agentDomain} (or MAILAGENT_DOMAIN) to every \`mailagent serve\` on this database.`);
  } else if (opts.domain) {
    const file = join(config.dataDir, 'config.json');
    const current = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>) : {};
    if (current.domain === undefined) {
      mkdirSync(config.dataDir, { recursive: true, mode: 0o700 }); // holds mail: owner-only, as serve makes it
      writeFileSync(file, JSON.stringify({ ...current, domain: config.agentDomain }, null, 2) + '\n');
    }
  }

  const profile = ctx.globals.profile ?? (ctx.env.MAILAGENT_PROFILE || DEFAULT_PROFILE);
  const saved = saveNewProfile(profile, {
    base_url: config.publicUrl,
    live_key: result.keys.live.key,
    test_key: result.keys.test.key,
    // The keys belong to the database init wrote: with --database, that PostgreSQL database, not
    // the (unused) default data dir, whose SQLite daemon must never re-point this profile.
    ...profileOwner(config),
  }, ctx.env);

  if (ctx.out.json) {
    ctx.out.printJson(result);
  } else {
    printKeys(ctx.out, result, 'stdout');
    ctx.out.info(`\nInitialised ${describeLocation(config)}.`);
  }
  ctx.out.info(`${savedProfileText(saved, profile)} (The CLI uses the test key unless --live.)`);
  if (!ctx.out.json) ctx.out.info(`Next: ${nextStep(config, opts)}`);
}

/** The command that serves what init just made (the database URL is not echoed: it holds a password). */
function nextStep(config: { dataDir: string; database: { kind: string } }, opts: InitOptions): string {
  if (config.database.kind === 'postgres') {
    return opts.database ? 'mailagent serve --database <the same URL> (or MAILAGENT_DATABASE_URL)' : 'mailagent serve (with the same MAILAGENT_DATABASE_URL)';
  }
  return `mailagent serve${opts.dataDir ? ` --data-dir ${config.dataDir}` : ''}`;
}

/** The keys, shown once: on stdout for `init`, on stderr for `serve` (its stdout stays clean). */
export function printKeys(out: Output, r: BootstrapResult, where: 'stdout' | 'stderr'): void {
  const c = where === 'stdout' ? out.c : out.ce;
  const lines = [
    `workspace  ${r.workspace.slug} (${r.workspace.id})`,
    `agent      ${r.agent.email} (${r.agent.id})`,
    `live key   ${c.bold(r.keys.live.key)}`,
    `test key   ${c.bold(r.keys.test.key)}`,
    c.yellow('These keys are shown once: only their hashes are stored.'),
  ];
  for (const l of lines) {
    if (where === 'stdout') out.line(l);
    else out.stderr.write(l + '\n');
  }
}
