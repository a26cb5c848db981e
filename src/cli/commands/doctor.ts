import type { Command } from 'commander';
import { examples, run, type CommandContext } from '../context.js';
import { loadDataDirConfig } from './admin.js';
import { CliError } from '../errors.js';

export function register(program: Command): void {
  const cmd = program
    .command('doctor')
    .description('Check this machine for running the daemon: data dir, disk, ports, relay (EHLO), DNS of custom domains, clock')
    .option('--data-dir <dir>', 'data directory (default: $MAILAGENT_DATA_DIR, else $XDG_DATA_HOME/mailagent)')
    .option('--config <file>', 'config file (default: <data dir>/config.json) [env MAILAGENT_CONFIG]')
    .option('--port <n>', 'HTTP port to check, as serve takes it (default: the running daemon\'s, else the configured one)')
    .option('--smtp-port <n>', 'SMTP port to check (default: the running daemon\'s, else the configured one)')
    .action(run(doctorAction));
  examples(cmd, [
    'mailagent doctor',
    'mailagent doctor --data-dir ./data --port 8080 --smtp-port 2526',
    'sudo -u mailagent MAILAGENT_DATA_DIR=/var/lib/mailagent mailagent doctor',
    'mailagent doctor --json | jq \'.[] | select(.status != "ok")\'',
  ]);
  cmd.addHelpText('after', '\nExit codes: 0 every check passed or only warned (a warning, such as no relay on a default install, is advice, not a failure); 1 a check failed (FAIL); 2 a bad flag or config value.');
}

async function doctorAction(ctx: CommandContext, opts: { dataDir?: string; config?: string; port?: string; smtpPort?: string }): Promise<void> {
  const config = await loadDataDirConfig(ctx, opts.dataDir, opts.config, { port: opts.port, smtpPort: opts.smtpPort });
  const { runDoctor } = await import('../../server/doctor.js');
  const checks = await runDoctor(config, { explicitPorts: { http: opts.port !== undefined, smtp: opts.smtpPort !== undefined } });
  const failed = checks.filter((c) => c.status === 'fail');
  ctx.out.result(checks, () => {
    for (const c of checks) {
      const mark = c.status === 'ok' ? 'ok  ' : c.status === 'warn' ? 'warn' : 'FAIL';
      ctx.out.line(`${mark}  ${c.check}: ${c.detail}`);
      if (c.fix && c.status !== 'ok') ctx.out.line(`      fix: ${c.fix}`);
    }
  });
  if (failed.length) throw new CliError(`${failed.length} check(s) failed: ${failed.map((c) => c.check).join(', ')}`);
}
