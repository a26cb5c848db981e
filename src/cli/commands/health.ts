import { Option, type Command } from 'commander';
import { CliError, UsageError } from '../errors.js';
import { examples, run, type CommandContext } from '../context.js';
import { parseDuration } from './wait.js';
import { httpUrl } from '../../contract/loopback.js';

export function register(program: Command): void {
  const cmd = program
    .command('health')
    .description('Ask a daemon whether it is alive (GET /v1/health) or ready (GET /health/ready); exit 0 when it is')
    .option('--ready', 'check readiness (database writable, listeners, workers, disk above the guard) instead of liveness')
    .addOption(new Option('--wait <duration>', 'keep asking until it answers yes or this long has passed: 30s, 2m').argParser(parseDuration))
    .option('--url <url>', 'daemon URL (default: --base-url, $MAILAGENT_BASE_URL, the profile\'s, else http://127.0.0.1:7420)')
    .action(run(healthAction));
  examples(cmd, [
    'mailagent health',
    'mailagent health --ready --url http://127.0.0.1:7420 --wait 60s   # systemd ExecStartPost, Docker HEALTHCHECK',
    'mailagent health --ready --json',
  ]);
  cmd.addHelpText('after', '\nNo API key is needed: both endpoints are public. Exit 1 when not alive/ready (or unreachable).');
}

/**
 * Whether a 200 answer is mailagent's: the liveness route answers `{status: "ok", version, time}`
 * (contract Health), readiness `{status: "ready", checks: [...]}` (server/ops readinessAnswer).
 * Any other server answering 200 ("ok", a proxy's page) is not a healthy daemon.
 */
function isHealthDocument(body: unknown, ready: boolean): boolean {
  const b = body as Record<string, unknown> | null;
  if (!b || typeof b !== 'object') return false;
  return ready ? b.status === 'ready' && Array.isArray(b.checks) : b.status === 'ok' && typeof b.version === 'string' && typeof b.time === 'string';
}

async function healthAction(ctx: CommandContext, opts: { ready?: boolean; wait?: number; url?: string }): Promise<void> {
  if (opts.url !== undefined && !httpUrl(opts.url)) throw new UsageError(`--url "${opts.url}" is not an http:// or https:// URL (e.g. http://127.0.0.1:7420)`);
  const base = (opts.url ?? ctx.connection().baseUrl).replace(/\/+$/, '');
  const url = base + (opts.ready ? '/health/ready' : '/v1/health');
  const deadline = Date.now() + (opts.wait ?? 0) * 1000;
  let last = '';
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5000) });
      const text = await res.text();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        body = {};
      }
      if (res.ok && !isHealthDocument(body, opts.ready === true)) {
        last = `${url} answered HTTP ${res.status} but not with mailagent's health document (${opts.ready ? '{"status":"ready","checks":[…]}' : '{"status":"ok","version":…,"time":…}'}; got ${JSON.stringify(text.slice(0, 80))}): is it a mailagent daemon?`;
        if (Date.now() >= deadline) break;
      } else if (res.ok) {
        ctx.out.result(body, () => ctx.out.success(`${base}: ${opts.ready ? 'ready' : 'alive'}`));
        return;
      } else {
        last = `${res.status}: ${String((body.error as { message?: string } | undefined)?.message ?? res.statusText)}`;
        if (Date.now() >= deadline) {
          if (ctx.globals.json) ctx.out.printJson(body);
          break;
        }
      }
    } catch (err) {
      last = `cannot reach ${url} (${(err as Error).message}); is \`mailagent serve\` running?`;
      if (Date.now() >= deadline) break;
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new CliError(`${base}: not ${opts.ready ? 'ready' : 'alive'}: ${last}`);
}
