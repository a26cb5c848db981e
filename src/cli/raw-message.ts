import type { CommandContext } from './context.js';

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
  await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())));
}
