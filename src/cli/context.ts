import type { Command } from 'commander';
import { InvalidArgumentError } from 'commander';
import type { Client } from '../client/index.js';
import { CliError, EXIT, UsageError, exitCodeFor, formatError } from './errors.js';
import { Output } from './output.js';
import { missingKeyError, resolveConnection, type GlobalFlags, type Resolved } from './profiles.js';
import { CLI_VERSION } from './version.js';

export interface Globals extends Required<Pick<GlobalFlags, 'live' | 'json' | 'color' | 'quiet'>> {
  baseUrl?: string;
  apiKey?: string;
  profile?: string;
}

export type Prompts = typeof import('@inquirer/prompts');

export interface CommandContext {
  globals: Globals;
  out: Output;
  env: NodeJS.ProcessEnv;
  /** stdin and stdout are both TTYs: prompts allowed. */
  interactive: boolean;
  /** Fired on Ctrl-C. */
  signal: AbortSignal;
  connection(): Resolved;
  client(): Promise<Client>;
  clientNoKey(): Promise<Client>;
  prompt(): Promise<Prompts>;
  require<T>(value: T | undefined | null | '', flag: string): T;
  confirm(message: string, yes: boolean | undefined): Promise<boolean>;
}

/** Streams and environment, injectable for unit tests. */
export interface Io {
  env: NodeJS.ProcessEnv;
  stdout: { write(s: string): unknown; isTTY?: boolean };
  stderr: { write(s: string): unknown; isTTY?: boolean };
  stdinIsTTY: boolean;
}

export const processIo = (): Io => ({ env: process.env, stdout: process.stdout, stderr: process.stderr, stdinIsTTY: !!process.stdin.isTTY });

let io: Io | null = null;
/** Tests swap the streams; main() leaves the process ones. */
export function setIo(next: Io | null): void {
  io = next;
}

const interrupt = new AbortController();
let sigintInstalled = false;

/**
 * Only commands that use ctx.signal (streams) catch Ctrl-C: the first one aborts what is in
 * flight so the stream ends cleanly with exit 130; a second one exits at once. Other commands
 * keep Node's default (killed by SIGINT, which the shell reports as 130).
 */
function installSigint(): void {
  if (sigintInstalled || io) return;
  sigintInstalled = true;
  process.on('SIGINT', () => {
    if (interrupt.signal.aborted) process.exit(EXIT.interrupted);
    interrupt.abort();
    process.exitCode = EXIT.interrupted;
  });
}

export function createContext(cmd: Command): CommandContext {
  const cur = io ?? processIo();
  const g = cmd.optsWithGlobals() as GlobalFlags;
  const globals: Globals = {
    baseUrl: g.baseUrl,
    apiKey: g.apiKey,
    profile: g.profile,
    live: !!g.live,
    json: !!g.json,
    color: g.color !== false,
    quiet: !!g.quiet,
  };
  const out = new Output({ ...globals, env: cur.env, stdout: cur.stdout, stderr: cur.stderr });
  const interactive = cur.stdinIsTTY && !!cur.stdout.isTTY;
  let resolved: Resolved | null = null;
  const connection = () => (resolved ??= resolveConnection(globals, cur.env));
  const makeClient = async (withKey: boolean) => {
    const r = connection();
    if (withKey && !r.apiKey) throw missingKeyError(r);
    const { createClient } = await import('../client/index.js');
    try {
      return createClient({ baseUrl: r.baseUrl, apiKey: withKey ? r.apiKey : null, userAgent: `mailagent-cli/${CLI_VERSION}` });
    } catch (err) {
      throw new UsageError(`--base-url: ${(err as Error).message}`);
    }
  };
  return {
    globals,
    out,
    env: cur.env,
    interactive,
    get signal() {
      installSigint();
      return interrupt.signal;
    },
    connection,
    client: () => makeClient(true),
    clientNoKey: () => makeClient(false),
    prompt: () => import('@inquirer/prompts'),
    require<T>(value: T | undefined | null | '', flag: string): T {
      if (value === undefined || value === null || value === '') throw new UsageError(`missing ${flag}`);
      return value;
    },
    async confirm(message: string, yes: boolean | undefined): Promise<boolean> {
      if (yes) return true;
      if (!interactive) throw new UsageError(`${message.replace(/\?$/, '')}: refusing without --yes (stdin is not a terminal)`);
      const { confirm } = await import('@inquirer/prompts');
      return confirm({ message, default: false });
    },
  };
}

/**
 * Wrap a command action: build the context, run, and turn any error into the error line and
 * exit code (process.exitCode, so pending output drains). Commander passes the positional
 * arguments, then the options, then the Command; `fn` gets the context first, then those.
 */
export function run<A extends unknown[]>(fn: (ctx: CommandContext, ...args: A) => Promise<void> | void) {
  return async (...args: unknown[]): Promise<void> => {
    const cmd = args[args.length - 1] as Command;
    const ctx = createContext(cmd);
    try {
      await fn(ctx, ...(args.slice(0, -1) as A));
    } catch (err) {
      reportError(ctx.out, err, (flag) => cmd.options.some((o) => o.long === flag));
      process.exitCode = exitCodeFor(err);
    }
  };
}

export function reportError(out: Output, err: unknown, hasFlag?: (flag: string) => boolean): void {
  if (err instanceof Error && err.name === 'AbortError' && interrupt.signal.aborted) return;
  out.error(formatError(err, hasFlag));
  const unexpected = !(err instanceof UsageError) && !(err instanceof CliError) && err instanceof Error &&
    !['ApiError', 'ConnectionError', 'ExitPromptError', 'InterruptedError'].includes(err.name);
  if (unexpected && (io?.env ?? process.env).MAILAGENT_DEBUG && err.stack) out.error(err.stack);
}

const EXAMPLES = new WeakMap<Command, string[]>();

/** Examples shown after --help and in the man page. */
export function examples(cmd: Command, lines: string[]): Command {
  EXAMPLES.set(cmd, lines);
  cmd.addHelpText('after', '\nExamples:\n' + lines.map((l) => `  $ ${l}`).join('\n'));
  return cmd;
}

export function examplesOf(cmd: Command): string[] {
  return EXAMPLES.get(cmd) ?? [];
}

/** commander argParser for whole numbers; a bad value is a usage error naming the flag. */
export function parseIntOption(flag: string, min = 0, max = Number.MAX_SAFE_INTEGER) {
  return (v: string): number => {
    if (!/^\d+$/.test(v.trim())) throw new InvalidArgumentError(`${flag} must be a whole number`);
    const n = Number(v);
    if (n < min || n > max) throw new InvalidArgumentError(`${flag} must be from ${min} to ${max}`);
    return n;
  };
}

/** `a,b , c` → ['a','b','c']; repeated flags accumulate. */
export function parseList(v: string, prev?: string[]): string[] {
  return [...(prev ?? []), ...v.split(',').map((s) => s.trim()).filter(Boolean)];
}

/** Wait `ms`, or less if Ctrl-C fires first (follow/tail loops). */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
