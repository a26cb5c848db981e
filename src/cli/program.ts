import { Command } from 'commander';
import { nouns } from './commands/index.js';
import { CLI_VERSION } from './version.js';

/**
 * The whole commander tree. Pure: no I/O, no action code loaded (actions lazy-import the client
 * or the server), so `mailagent --help` stays fast and the docs generator can walk it.
 */
export function buildProgram(): Command {
  const program = new Command('mailagent')
    .description('Email identities for software agents: the Agent Email Service API, an SMTP listener and this CLI in one binary')
    .version(CLI_VERSION, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help')
    .option('--base-url <url>', 'daemon URL [env MAILAGENT_BASE_URL] (default: the profile\'s, else http://127.0.0.1:7420)')
    .option('--api-key <key>', 'API key [env MAILAGENT_API_KEY] (default: the profile\'s test key)')
    .option('--profile <name>', 'CLI profile to use [env MAILAGENT_PROFILE] (default: "default")')
    .option('--live', 'use the profile\'s live key instead of its test key')
    .option('--json', 'print API objects as JSON, unchanged (NDJSON for streams)')
    .option('--no-color', 'no colour (also: NO_COLOR=1, or when output is not a terminal)')
    .option('--quiet', 'no progress messages on stderr (errors still print)')
    // Settings set before subcommands exist are inherited by every one of them.
    .configureHelp({ showGlobalOptions: true, sortSubcommands: false })
    .showSuggestionAfterError(true)
    .exitOverride();
  program.addHelpText('after', [
    '',
    'Exit codes: 0 ok, 1 API/server error, 2 usage, 4 authentication/permission, 130 interrupted.',
    'Profiles: $XDG_CONFIG_HOME/mailagent/config.json, written by `mailagent init` and by `mailagent serve` on a fresh data dir.',
    'Run `mailagent <command> --help` for a command\'s options and examples; `man mailagent` for the manual.',
  ].join('\n'));
  for (const register of nouns) register(program);
  return program;
}
