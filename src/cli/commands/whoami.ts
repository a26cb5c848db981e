import type { Command } from 'commander';
import { examples, run, type CommandContext } from '../context.js';

export function register(program: Command): void {
  const cmd = program
    .command('whoami')
    .description('Show the key in use, its workspace and its agent (GET /v1/me)')
    .action(run(whoamiAction));
  examples(cmd, ['mailagent whoami', 'mailagent whoami --live', 'mailagent whoami --json | jq -r .workspace.slug']);
}

async function whoamiAction(ctx: CommandContext): Promise<void> {
  const client = await ctx.client();
  const me = await client.call('me.get');
  ctx.out.result(me, (m) => {
    const k = m.api_key;
    ctx.out.record({
      key: `${k.name} (${k.id}, ${k.prefix}…)`,
      mode: k.mode,
      scopes: k.scopes.length ? k.scopes.join(',') : '(none)',
      workspace: `${m.workspace.slug} (${m.workspace.id}, tier ${m.workspace.tier}, ${m.workspace.tier_status})`,
      agent: m.agent ? `${m.agent.email} (${m.agent.id})` : 'none (the key is not bound to an agent)',
      api: client.baseUrl,
    });
  });
}
