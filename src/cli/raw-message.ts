import type { CommandContext } from './context.js';
import { neutralize } from './output.js';

/**
 * `messages raw` / `inbox raw`: the .eml byte-exact (8-bit and non-UTF-8 mail must survive),
 * to a file or to stdout.
 */
export async function saveRawMessage(ctx: CommandContext, id: string, output: string | undefined): Promise<void> {
  const client = await ctx.client();
  const bytes = await client.bytes(`/messages/${encodeURIComponent(id)}/raw`, { signal: ctx.signal });
  if (output) {
    const { writeFile } = await import('node:fs/promises');
    await writeFile(output, bytes);
    ctx.out.result({ id, output, size: bytes.length }, () => ctx.out.info(`wrote ${bytes.length} bytes to ${output}`));
    return;
  }
  // Piped or redirected: the bytes, exact. On a terminal the message is shown, not obeyed
  // (a raw message is the most hostile text there is): neutralised, line breaks kept.
  if (ctx.out.tty) {
    ctx.out.stdout.write(neutralize(Buffer.from(bytes).toString('utf8'), { multiline: true }));
    return;
  }
  await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())));
}
