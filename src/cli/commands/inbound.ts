import { Option, type Command } from 'commander';
import { examples, run, type CommandContext } from '../context.js';
import { UsageError } from '../errors.js';
import { readFlagFile, readStdinText } from '../input.js';

interface SimulateFlags {
  agent?: string; from?: string; fromName?: string; subject?: string; body?: string; bodyFile?: string; htmlFile?: string;
  inReplyTo?: string; spf?: 'pass' | 'fail'; dkim?: 'pass' | 'fail'; to?: string;
}


export function register(program: Command): void {
  const inbound = program.command('inbound').description('Inbound mail tools (the test simulator)');

  const simulate = inbound.command('simulate')
    .description('Deliver a test message to an agent through the real inbound pipeline (POST /v1/test/inbound; test key only)')
    .option('--agent <agent>', 'receiving agent (id, name or address)')
    .option('--from <address>', 'sender address')
    .option('--from-name <name>', 'sender display name')
    .option('--subject <text>', 'subject line')
    .option('--body <text>', 'plain-text body (or --body-file, or pipe it on stdin)')
    .option('--body-file <file>', 'read the plain-text body from a file')
    .option('--html-file <file>', 'read an HTML body from a file')
    .option('--in-reply-to <id>', 'a msg_ or rcv_ id this message answers (a sent message → reply.received)')
    .addOption(new Option('--spf <result>', 'SPF result to record').choices(['pass', 'fail']))
    .addOption(new Option('--dkim <result>', 'DKIM result to record (both fail → message.received.unauthenticated)').choices(['pass', 'fail']))
    .option('--to <address>', 'deliver to this plus address of the agent (default: its own address)')
    .addHelpText('after', [
      '',
      'Runs the same pipeline as real mail: classifier, threading, storage, events and webhooks.',
      'Needs a test key: the CLI uses the profile\'s test key unless --live (a live key gets',
      '403 test_mode_required, exit 4). Prints the message id, event type, quarantined flag and',
      'classification; --json prints the whole answer.',
    ].join('\n'))
    .action(run(async (ctx: CommandContext, o: SimulateFlags) => {
      const agent = ctx.require(o.agent, '--agent');
      const from = ctx.require(o.from, '--from');
      const subject = ctx.require(o.subject, '--subject');
      if (o.body !== undefined && o.bodyFile) throw new UsageError('give --body or --body-file, not both');
      let text = o.body;
      if (text === undefined && o.bodyFile) text = await readFlagFile(o.bodyFile, { flag: '--body-file' }, 'utf8');
      if (text === undefined && !process.stdin.isTTY) text = await readStdinText();
      const html = o.htmlFile ? await readFlagFile(o.htmlFile, { flag: '--html-file' }, 'utf8') : undefined;
      if (text === undefined && html === undefined) throw new UsageError('missing --body, --body-file, --html-file or a body on stdin');
      const body = {
        agent, from, subject,
        ...(o.fromName !== undefined ? { from_name: o.fromName } : {}),
        ...(text !== undefined ? { body_text: text } : {}),
        ...(html !== undefined ? { body_html: html } : {}),
        ...(o.inReplyTo ? { in_reply_to_message_id: o.inReplyTo } : {}),
        ...(o.to ? { to: o.to } : {}),
        ...(o.spf ? { spf: o.spf } : {}),
        ...(o.dkim ? { dkim: o.dkim } : {}),
      };
      const client = await ctx.client();
      const r = await client.call('received.simulate', { body });
      ctx.out.result(r, () => {
        const c = r.classification;
        ctx.out.record({
          message_id: r.message_id,
          thread_id: r.thread_id,
          event_id: r.event_id,
          event_type: r.event_type,
          quarantined: r.quarantined ? 'yes' : 'no',
          intent: c.intent,
          urgency: c.urgency,
          injection_score: c.injection_score,
          injection_categories: c.injection_categories.join(', ') || '-',
          sender_reputation: c.sender_reputation,
          entities: Object.keys(c.entities).length ? JSON.stringify(c.entities) : '-',
          classifier_model: c.classifier_model,
        });
      });
    }));
  examples(simulate, [
    'mailagent inbound simulate --agent agent --from bob@example.com --subject Hi --body "Hello there"',
    'echo "Your code is 481516" | mailagent inbound simulate --agent agent --from no-reply@example.com --subject "Your code" --to agent+signup@local.mailagent.localhost',
    'mailagent inbound simulate --agent support --from bob@example.com --subject "Re: Hi" --body Thanks --in-reply-to msg_01j...',
    'mailagent inbound simulate --agent agent --from spoof@example.com --subject x --body y --spf fail --dkim fail --json | jq .event_type',
  ]);
}
