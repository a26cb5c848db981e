import type { Command } from 'commander';
import type { Usage } from '../../contract/account.js';
import { examples, run, type CommandContext } from '../context.js';

export function register(program: Command): void {
  const usage = program.command('usage')
    .description('This month\'s usage (UTC calendar month) against the tier\'s caps (needs an unbound key)')
    .addHelpText('after', '\nThe tier is set by the operator: `mailagent admin tier pro`.')
    .action(run(async (ctx: CommandContext) => {
      const client = await ctx.client();
      const u: Usage = await client.call('billing.usage');
      ctx.out.result(u, () => {
        ctx.out.record({
          workspace_id: u.workspace_id, tier: `${u.tier} (${u.tier_status})`, period: `${u.period_start} .. ${u.period_end}`,
        });
        ctx.out.line();
        ctx.out.table([
          { what: 'sends (recipients)', used: u.usage.sends, cap: u.caps.monthly_sends, cost: u.usage.sends_cost_usd },
          { what: 'parses (received)', used: u.usage.parses, cap: u.caps.monthly_parses, cost: u.usage.parses_cost_usd },
          { what: 'webhook deliveries', used: u.usage.webhook_deliveries, cap: null, cost: null },
        ], [
          ['USAGE', (r) => r.what],
          ['THIS MONTH', (r) => r.used],
          ['MONTHLY CAP', (r) => (r.cap === null ? 'none' : r.cap)],
          ['COST USD', (r) => (r.cost === null ? '' : r.cost.toFixed(2))],
        ]);
        ctx.out.line();
        ctx.out.record({ agents_cap: u.caps.agents, hourly_cap: u.caps.hourly, daily_cap: u.caps.daily });
      });
    }));
  examples(usage, ['mailagent usage', 'mailagent usage --json | jq .usage.sends']);
}
