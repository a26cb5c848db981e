import type { Command } from 'commander';
import { run, examples, type CommandContext } from '../context.js';
import { sendBody, type SendFlags } from './send.js';

export function register(program: Command): void {
  const appeal = program.command('appeal')
    .description('Appeal a cold_email_prohibited refusal with the refused content, verbatim')
    .requiredOption('--subject <text>', 'the refused subject')
    .option('--body <text>', 'the refused plain-text body (or pipe it on stdin)').option('--body-file <file>', 'read it from a file')
    .option('--html-file <file>', 'the refused HTML body').option('--agent <agent>', 'the sending agent (optional with one agent)')
    .action(run(async (ctx: CommandContext, o: SendFlags & { subject: string }) => {
      const content = await sendBody(ctx, o, { to: false, subject: true });
      const client = await ctx.client();
      const r = await client.call('messages.appeal', {
        body: {
          subject: o.subject,
          ...(content.body_text !== undefined ? { body_text: content.body_text as string } : {}),
          ...(content.body_html !== undefined ? { body_html: content.body_html as string } : {}),
          ...(o.agent ? { agent: o.agent } : {}),
        },
      });
      ctx.out.result(r, () => ctx.out.line(`${r.outcome}${r.review_score !== undefined ? ` (review score ${r.review_score})` : ''}${r.replayed ? ' [replayed]' : ''}: ${r.message}`));
    }));
  examples(appeal, [
    'mailagent appeal --agent agent --subject "Hello" --body-file refused.txt',
    'cat refused.txt | mailagent appeal --agent billing --subject "Your renewal" --json',
  ]);
}
