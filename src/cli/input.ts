import { readFile } from 'node:fs/promises';
import { UsageError } from './errors.js';

/** Standard input, whole (bodies piped into send, simulate, classify, api --data @-, webhooks verify). */
export async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

export async function readStdinText(): Promise<string> {
  return (await readStdin()).toString('utf8');
}

/**
 * A file a flag or argument names (`--body-file`, `--html-file`, `--attach`, `--data @file`, an
 * .eml): a path that cannot be read is a usage mistake (exit 2), said in words, not an errno dump.
 */
export interface FileOrigin { flag?: string; hint?: string }
export async function readFlagFile(path: string, from: FileOrigin): Promise<Buffer>;
export async function readFlagFile(path: string, from: FileOrigin, encoding: 'utf8'): Promise<string>;
export async function readFlagFile(path: string, from: FileOrigin, encoding?: 'utf8'): Promise<Buffer | string> {
  try {
    return encoding ? await readFile(path, encoding) : await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory'
      : code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (err as Error).message;
    throw new UsageError(`cannot read ${path}${from.flag ? ` (${from.flag})` : ''}: ${why}.${from.hint ? ` ${from.hint}` : ''}`);
  }
}
