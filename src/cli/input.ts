/** Standard input, whole (bodies piped into send, simulate, classify, api --data @-, webhooks verify). */
export async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function readStdinText(): Promise<string> {
  return (await readStdin()).toString('utf8');
}
