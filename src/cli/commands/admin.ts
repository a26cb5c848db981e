import type { Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { examples, run, type CommandContext } from '../context.js';

const TIERS = ['free', 'pro', 'scale'];

export function register(program: Command): void {
  const admin = program.command('admin').description('Operator actions on the local data directory (no API key needed)');
  const tier = admin
    .command('tier')
    .description('Set the workspace\'s tier (free, pro, scale); a running daemon applies the new caps at once')
    .argument('<tier>', 'free, pro or scale')
    .option('--data-dir <dir>', 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)')
    .action(run(tierAction));
  examples(tier, ['mailagent admin tier pro', 'mailagent admin tier scale --data-dir ./data --json']);
}

async function tierAction(ctx: CommandContext, tier: string, opts: { dataDir?: string }): Promise<void> {
  if (!TIERS.includes(tier)) throw new UsageError(`<tier> must be one of ${TIERS.join(', ')}; got "${tier}".`);
  // The server side is loaded only here, as `init` does, so `mailagent --help` stays light.
  const { loadConfig, ConfigError } = await import('../../server/config.js');
  const { setTierInDataDir } = await import('../../server/admin.js');
  const { VERSION } = await import('../../server/version.js');
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig({ dataDir: opts.dataDir }, ctx.env, VERSION);
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  const result = await setTierInDataDir(config, tier);
  if (!result) throw new CliError(`${config.dataDir} is not initialised; run \`mailagent init\` first.`);
  ctx.out.result(result, () => ctx.out.success(`Workspace ${result.workspace_id}: tier ${result.from} → ${result.tier}.`));
}
