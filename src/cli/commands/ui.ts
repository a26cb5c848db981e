import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { examples, run, type CommandContext } from '../context.js';

interface UiOptions {
  open?: boolean;
}

export function register(program: Command): void {
  const cmd = program
    .command('ui')
    .description('Print a one-time sign-in link to the web inbox, acting as this key (POST /v1/web/sign-in-links)')
    .option('--open', 'also open the link in the default browser')
    .action(run(uiAction));
  examples(cmd, [
    'mailagent ui                 # prints http://127.0.0.1:7420/ui/sign-in/mwl_…',
    'mailagent ui --open',
    'mailagent ui --live          # the inbox acts as the live key',
    'mailagent ui --json | jq -r .url',
  ]);
  cmd.addHelpText('after', '\nThe link works once, within 10 minutes; the browser session it starts lasts 12 hours and has exactly\nthis key\'s scopes and agent. Or open the inbox\'s address and paste an API key.\n');
}

/** The platform's "open this URL" command (no shell: the URL is one argument). */
function opener(): [string, string[]] {
  if (process.platform === 'darwin') return ['open', []];
  if (process.platform === 'win32') return ['rundll32', ['url.dll,FileProtocolHandler']];
  return ['xdg-open', []];
}

async function uiAction(ctx: CommandContext, opts: UiOptions): Promise<void> {
  const client = await ctx.client();
  const link = await client.call('web.link', { body: {} });
  ctx.out.result(link, (l) => {
    ctx.out.line(l.url);
    ctx.out.info(`one-time link, valid until ${l.expires_at}`);
  });
  if (opts.open) {
    const [cmd, args] = opener();
    await new Promise<void>((resolve) => {
      const child = spawn(cmd, [...args, link.url], { stdio: 'ignore', detached: true });
      child.on('error', (err) => {
        ctx.out.warn(`could not open a browser (${cmd}: ${err.message}); open the link above yourself`);
        resolve();
      });
      child.on('spawn', () => {
        child.unref();
        resolve();
      });
    });
  }
}
