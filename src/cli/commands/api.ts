import type { Command } from 'commander';
import { readFlagFile, readStdinText } from '../input.js';
import { UsageError } from '../errors.js';
import { examples, run, type CommandContext } from '../context.js';
import { neutralize } from '../output.js';

interface ApiOptions {
  data?: string;
  query?: string[];
  header?: string[];
  include?: boolean;
}

const collect = (v: string, prev?: string[]) => [...(prev ?? []), v];

export function register(program: Command): void {
  const cmd = program
    .command('api')
    .description('Call any API route with the configured key and print the answer (like `gh api`)')
    .argument('<method>', 'GET, POST, PATCH, PUT or DELETE')
    .argument('<path>', 'path such as /v1/agents (a path without /v1 is put under the base URL\'s prefix)')
    .option('-d, --data <json>', 'request body: JSON text, @file, or @- for stdin')
    .option('-q, --query <key=value>', 'query parameter (repeatable)', collect)
    .option('-H, --header <name:value>', 'extra request header (repeatable), e.g. "Idempotency-Key: abc"', collect)
    .option('-i, --include', 'print the status line and response headers on stderr')
    .action(run(apiAction));
  examples(cmd, [
    'mailagent api GET /v1/agents',
    'mailagent api GET /v1/agents -q status=all -q limit=5',
    `mailagent api POST /v1/agents --data '{"name":"sarah"}'`,
    'echo \'{"status":"paused"}\' | mailagent api PATCH /v1/agents/sarah --data @-',
  ]);
}

async function readData(arg: string): Promise<string> {
  if (!arg.startsWith('@')) return arg;
  if (arg === '@-') {
    return readStdinText();
  }
  return readFlagFile(arg.slice(1), { flag: '--data' }, 'utf8');
}

async function apiAction(ctx: CommandContext, method: string, path: string, o: ApiOptions): Promise<void> {
  const m = method.toUpperCase();
  if (!/^(GET|POST|PATCH|PUT|DELETE|HEAD|OPTIONS)$/.test(m)) throw new UsageError(`METHOD must be GET, POST, PATCH, PUT or DELETE, not "${method}"`);
  if (!path.startsWith('/')) throw new UsageError(`PATH must start with "/" (e.g. /v1/agents), not "${path}"`);
  let body: string | undefined;
  if (o.data !== undefined) {
    body = await readData(o.data);
    // Empty is allowed: real clients send an empty JSON body on POST/DELETE.
    if (body.trim() !== '') {
      try {
        JSON.parse(body);
      } catch (err) {
        throw new UsageError(`--data is not valid JSON: ${(err as Error).message}`);
      }
    }
  }
  const query: Record<string, string[]> = {};
  for (const q of o.query ?? []) {
    const i = q.indexOf('=');
    if (i <= 0) throw new UsageError(`--query "${q}" must be key=value`);
    (query[q.slice(0, i)] ??= []).push(q.slice(i + 1));
  }
  const headers: Record<string, string> = {};
  for (const h of o.header ?? []) {
    const i = h.indexOf(':');
    if (i <= 0) throw new UsageError(`--header "${neutralize(h)}" must be "Name: value"`);
    const name = h.slice(0, i).trim();
    const value = h.slice(i + 1).trim();
    // A CR/LF would split the request (header injection); fetch would throw a raw TypeError that
    // echoes the line break. Refuse it here, as a usage error, with the value shown neutralised.
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new UsageError(`--header "${neutralize(h)}": the name must be a token (letters, digits, - and !#$%&'*+.^_\`|~), without spaces or control characters`);
    if (/[\x00-\x08\x0a-\x1f\x7f]/.test(value)) throw new UsageError(`--header "${neutralize(h)}": the value must not contain line breaks or other control characters`);
    headers[name.toLowerCase()] = value;
  }

  const client = await ctx.client();
  const answer = await client.rawResponse(m, path, body, { query, headers, signal: ctx.signal });
  if (o.include) {
    ctx.out.stderr.write(`HTTP ${answer.status}\n`);
    answer.headers.forEach((v, k) => ctx.out.stderr.write(`${k}: ${v}\n`));
    ctx.out.stderr.write('\n');
  }
  const type = answer.headers.get('content-type') ?? '';
  const ok = answer.status >= 200 && answer.status <= 299;
  // An event stream (or any answer that is not JSON) is written out as it arrives: buffering
  // `GET /v1/events/stream` printed nothing and never ended.
  if (ok && answer.body && !/json/i.test(type)) {
    const { textChunks } = await import('../../client/index.js');
    for await (const text of textChunks(answer.body, ctx.signal)) ctx.out.stdout.write(text);
    return;
  }
  const res = { status: answer.status, headers: answer.headers, ...(await client.readBody(answer)) };
  // The body goes to stdout whatever the status, so scripts can read an error envelope too.
  if (typeof res.body === 'string') {
    if (res.body) ctx.out.stdout.write(res.body.endsWith('\n') ? res.body : res.body + '\n');
  } else {
    ctx.out.printJson(res.body);
  }
  if (res.status < 200 || res.status > 299) {
    const { errorFromResponse } = await import('../../client/index.js');
    throw errorFromResponse(res.status, res.body, res.text, res.headers.get('x-request-id'));
  }
}
