import type { Command } from 'commander';
import { run, examples, type CommandContext } from '../context.js';

export function register(program: Command): void {
  const appeal = program.command('appeal')
    .description('Appeal a cold_email_prohibited refusal with the refused content, verbatim')
    .requiredOption('--subject <text>', 'the refused subject')
    .option('--body <text>', 'the refused plain-text body').option('--body-file <file>', 'read it from a file')
    .option('--html-file <file>', 'the refused HTML body').option('--agent <agent>', 'the sending agent (optional with one agent)')
    .action(run(async (ctx: CommandContext, o: { subject: string; body?: string; bodyFile?: string; htmlFile?: string; agent?: string }) => {
      const { readFile } = await import('node:fs/promises');
      const text = o.body ?? (o.bodyFile ? await readFile(o.bodyFile, 'utf8') : undefined);
      const html = o.htmlFile ? await readFile(o.htmlFile, 'utf8') : undefined;
      ctx.require(text ?? html, '--body');
      const client = await ctx.client();
      const r = await client.call('messages.appeal', { body: { subject: o.subject, body_text: text, body_html: html, ...(o.agent ? { agent: o.agent } : {}) } });
      ctx.out.result(r, () => ctx.out.line(`${r.outcome}${r.review_score !== undefined ? ` (review score ${r.review_score})` : ''}${r.replayed ? ' [replayed]' : ''}: ${r.message}`));
    }));
  examples(appeal, ['mailagent appeal --subject "Hello" --body-file refused.txt', 'mailagent appeal --agent billing --subject "Your renewal" --body "..." --json']);
}
