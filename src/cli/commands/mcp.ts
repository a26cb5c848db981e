import type { Command } from 'commander';
import { examples, run, type CommandContext } from '../context.js';
import { CLI_VERSION } from '../version.js';

export function register(program: Command): void {
  const cmd = program
    .command('mcp')
    .description('Run an MCP server on stdio: agents use the mailbox as tools (docs/mcp.md)')
    .addHelpText('after', [
      '',
      'Speaks the Model Context Protocol on stdin/stdout for an MCP client (Claude Desktop or Code,',
      'Cursor, an agent SDK) that starts it as a subprocess. Every tool call goes to the daemon over',
      'the API with the resolved key: the profile\'s TEST key unless --live, or --api-key / --base-url /',
      '--profile / MAILAGENT_API_KEY like every command. stdout carries protocol messages only; a',
      'status line (not with --quiet) and warnings go to stderr. --json has no meaning here (stdout is the protocol).',
      'Runs until the client closes stdin (exit 0) or Ctrl-C (exit 130). A remote client can use the',
      'daemon\'s own endpoint instead: POST http://127.0.0.1:7420/mcp with Authorization: Bearer <key>.',
    ].join('\n'))
    .action(run(mcpAction));
  examples(cmd, [
    'mailagent mcp',
    'mailagent mcp --live --profile work',
    'claude mcp add mailagent -- mailagent mcp',
    'mailagent mcp --base-url http://10.0.0.5:7420 --api-key mk_test_...',
  ]);
}

async function mcpAction(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const signal = ctx.signal;
  // The SDK is loaded here, not at the top: `mailagent --help` must stay fast.
  const { serveStdio } = await import('../../mcp/stdio.js');
  const mode = ctx.globals.live ? 'live' : 'test';
  ctx.out.info(`mailagent mcp: serving tools on stdio for ${client.baseUrl} (${ctx.globals.apiKey ? 'given' : mode} key)`);
  await serveStdio(client, {
    version: CLI_VERSION,
    signal,
    log: (message, err) => process.stderr.write(`mailagent mcp: ${message}${err instanceof Error ? `: ${err.stack ?? err.message}` : ''}\n`),
  });
}
