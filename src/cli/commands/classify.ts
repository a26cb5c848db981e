import type { Command } from 'commander';
import { readStdinText } from '../input.js';
import { run, examples, type CommandContext } from '../context.js';

interface ClassifyOpts { agent?: string; outbound?: boolean }

async function readInput(file: string | undefined): Promise<string> {
  if (file && file !== '-') {
    const { readFile } = await import('node:fs/promises');
    return readFile(file, 'utf8');
  }
  return process.stdin.isTTY ? '' : readStdinText();
}

export function register(program: Command): void {
  const classify = program.command('classify')
    .description('Classify a message (.eml) without storing it: intent, entities, urgency, injection score; or the outbound cold-email screen')
    .argument('[file]', 'an RFC 822 message (.eml); `-` or omitted: read standard input')
    .option('--agent <agent>', "use this agent's classify_inbound setting and the workspace's history with the sender")
    .option('--outbound', 'run the outbound cold-email screen instead of inbound classification')
    .action(run(async (ctx: CommandContext, file: string | undefined, o: ClassifyOpts) => {
      const raw = await readInput(file);
      ctx.require(raw.trim() ? raw : undefined, '[file] (or a message on standard input)');
      const client = await ctx.client();
      const r = await client.call('classify.create', {
        body: { raw, direction: o.outbound ? 'outbound' : 'inbound', ...(o.agent ? { agent: o.agent } : {}) },
      });
      ctx.out.result(r, () => {
        if (r.cold_screen) {
          const s = r.cold_screen;
          ctx.out.record({ blocked: String(s.blocked), score: String(s.score), reason: s.reason, appealable: String(s.appealable), signals: s.signals.join(', ') || '-', message: s.message });
        } else if (r.classification) {
          const c = r.classification;
          ctx.out.record({
            intent: c.intent, urgency: String(c.urgency), injection_score: String(c.injection_score),
            injection_categories: c.injection_categories.join(', ') || '-', quarantined: String(r.quarantined),
            sender_reputation: String(c.sender_reputation), entities: JSON.stringify(c.entities), classifier_model: c.classifier_model,
          });
        }
      });
    }));
  examples(classify, [
    'mailagent classify message.eml',
    'cat message.eml | mailagent classify --json | jq .classification.intent',
    'mailagent classify --outbound draft.eml',
  ]);
}
