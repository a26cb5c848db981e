/** Exit codes (DESIGN.md "CLI"; gh uses 4 for authentication as well). */
export const EXIT = { ok: 0, error: 1, usage: 2, auth: 4, interrupted: 130 } as const;

/** Bad or missing flag/argument: exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A failure the CLI explains itself (not an API answer). */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number = EXIT.error) {
    super(message);
    this.name = 'CliError';
  }
}

/** Ctrl-C while waiting (a prompt, a stream). */
export class InterruptedError extends Error {
  constructor() {
    super('interrupted');
    this.name = 'InterruptedError';
  }
}

interface ApiLike {
  status: number;
  code: string;
  message: string;
  requestId?: string | null;
  param?: string | null;
}

export function isApiError(err: unknown): err is ApiLike & Error {
  return err instanceof Error && err.name === 'ApiError' && typeof (err as unknown as ApiLike).status === 'number';
}

export function exitCodeFor(err: unknown): number {
  if (err instanceof UsageError) return EXIT.usage;
  if (err instanceof CliError) return err.exitCode;
  if (err instanceof InterruptedError) return EXIT.interrupted;
  // @inquirer/prompts rejects with ExitPromptError on Ctrl-C.
  if (err instanceof Error && err.name === 'ExitPromptError') return EXIT.interrupted;
  if (isApiError(err)) return err.status === 401 || err.status === 403 ? EXIT.auth : EXIT.error;
  return EXIT.error;
}

/**
 * API field → the flag that sets it, for the commands that have that flag: an error naming a
 * field (`param: agent`) is shown as being about the flag the user typed (`--agent`).
 */
const PARAM_FLAGS: Record<string, string> = {
  agent: '--agent', agent_id: '--agent', from: '--agent', to: '--to', cc: '--cc', bcc: '--bcc', subject: '--subject',
  body_text: '--body', body_html: '--html-file', scheduled_at: '--at', send_at: '--at', tags: '--tag',
  metadata: '--meta', attachments: '--attach', name: '--name', scopes: '--scopes', mode: '--mode', url: '--url',
  event_types: '--type', event_type: '--type', description: '--description', thread_id: '--thread', address: '--address',
  since: '--since', expires_at: '--expires-at', attestation: '--attestation', limit: '--limit', cursor: '--cursor',
};

/** The flag for an API error's `param` (`to[2]` → `--to`), if the running command has it. */
export function flagForParam(param: string | null | undefined, hasFlag: (flag: string) => boolean): string | null {
  if (!param) return null;
  const base = param.replace(/\[\d+\].*$/, '').replace(/\..*$/, '');
  const flag = PARAM_FLAGS[base];
  return flag && hasFlag(flag) ? flag : null;
}

/** `error: <message> (code <code>, request <req_id>)` — the one error line format. */
export function formatError(err: unknown, hasFlag: (flag: string) => boolean = () => false): string {
  if (isApiError(err)) {
    const bits = [`code ${err.code}`];
    const flag = flagForParam(err.param, hasFlag);
    if (err.param) bits.push(`param ${err.param}`);
    if (err.requestId) bits.push(`request ${err.requestId}`);
    return `error: ${flag ? `${flag}: ` : ''}${err.message} (${bits.join(', ')})`;
  }
  if (err instanceof InterruptedError || (err instanceof Error && err.name === 'ExitPromptError')) return 'error: interrupted';
  if (err instanceof Error) return `error: ${err.message}`;
  return `error: ${String(err)}`;
}
