import type { Command } from 'commander';
import type { Reputation } from '../../contract/account.js';
import { examples, run, type CommandContext } from '../context.js';

const pct = (r: number) => `${(r * 100).toFixed(2)}%`;

export function register(program: Command): void {
  const reputation = program.command('reputation')
    .description('Sender reputation over the last 30 days of live mail (the workspace, or one agent)')
    .option('--agent <agent>', 'one agent (id, name or address); an agent-bound key always gets its own')
    .addHelpText('after', [
      '',
      'reputation = 1 - 5 x bounce_rate - 100 x complaint_rate + min(0.1, 0.5 x reply_rate), clamped to 0..1',
      '(1 with no mail yet). Counts are live mail only: test keys never move it.',
    ].join('\n'))
    .action(run(async (ctx: CommandContext, o: { agent?: string }) => {
      const client = await ctx.client();
      const r: Reputation = await client.call('reputation.get', { query: { agent_id: o.agent } });
      ctx.out.result(r, () => ctx.out.record({
        workspace_id: r.workspace_id, agent_id: r.agent_id ?? '(whole workspace)', reputation: r.reputation.toFixed(3),
        sends: r.send_count_30d, bounces: `${r.bounce_count_30d} (${pct(r.bounce_rate)})`,
        complaints: `${r.complaint_count_30d} (${pct(r.complaint_rate)})`, replies: `${r.reply_count_30d} (${pct(r.reply_rate)})`,
        period: `${r.period_start} .. ${r.period_end}`,
      }));
    }));
  examples(reputation, ['mailagent reputation', 'mailagent reputation --agent support', 'mailagent --live reputation --json | jq .reputation']);
}
