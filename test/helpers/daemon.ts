import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { testDatabase, type TestDatabase } from './db.js';

/**
 * End-to-end helpers: the real `bin/mailagent` (from dist/, built by `npm run build`) run as a
 * child process, against a real daemon started the same way on port 0 in a temp data dir. Each
 * daemon gets its own XDG_CONFIG_HOME/XDG_DATA_HOME so CLI profiles never touch the user's.
 */

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/**
 * The build the helpers run: this checkout's, or another checkout's when MAILAGENT_BUILD_ROOT
 * names one (a benchmark measuring a baseline build with this checkout's bench code).
 */
export const BUILD_ROOT = process.env.MAILAGENT_BUILD_ROOT ? resolve(process.env.MAILAGENT_BUILD_ROOT) : ROOT;
export const BIN = join(BUILD_ROOT, 'bin', 'mailagent');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON (throws with the output in the message if it is not). */
  json<T = any>(): T;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** Written to the child's stdin, then closed. */
  input?: string;
  cwd?: string;
  timeoutMs?: number;
}

/**
 * A clean environment: no MAILAGENT_* from the developer's shell (but the suite's transaction
 * check, db/open.ts MAILAGENT_CHECK_TX, so daemons run with it too), no colour forcing.
 */
export function isolatedEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if ((k.startsWith('MAILAGENT_') && k !== 'MAILAGENT_CHECK_TX') || k === 'FORCE_COLOR' || k === 'NO_COLOR' || k.startsWith('XDG_')) continue;
    env[k] = v;
  }
  return { ...env, HOME: home, XDG_CONFIG_HOME: join(home, 'config'), XDG_DATA_HOME: join(home, 'data'), ...extra };
}

function assertBuilt(): void {
  if (!existsSync(join(BUILD_ROOT, 'dist', 'cli', 'main.js'))) {
    throw new Error('dist/cli/main.js is missing: run `npm run build` first (npm test does it)');
  }
}

/** Run `node bin/mailagent ...args` to completion. */
export function runCli(args: string[], opts: RunOptions = {}): Promise<CliResult> {
  assertBuilt();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: opts.env ?? process.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mailagent ${args.join(' ')} did not finish in ${opts.timeoutMs ?? 20_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, opts.timeoutMs ?? 20_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolvePromise({
        code,
        signal,
        stdout,
        stderr,
        json() {
          try {
            return JSON.parse(stdout);
          } catch {
            throw new Error(`stdout of \`mailagent ${args.join(' ')}\` is not JSON:\n${stdout}\nstderr: ${stderr}`);
          }
        },
      });
    });
    child.stdin.end(opts.input ?? '');
  });
}

export interface TestDaemon {
  /** http://127.0.0.1:<port> */
  url: string;
  dataDir: string;
  /** The temp home holding config/ (profiles) and data/. */
  home: string;
  /** Environment the CLI runs with (isolated XDG dirs, no MAILAGENT_*). */
  env: NodeJS.ProcessEnv;
  liveKey: string;
  testKey: string;
  child: ChildProcess;
  /** Everything the daemon wrote on stderr so far. */
  stderr(): string;
  /** Run the CLI against this daemon (its saved profile). */
  cli(args: string[], opts?: RunOptions): Promise<CliResult>;
  /** Call the API directly to set up state (test key by default); a non-2xx answer throws. */
  api(method: string, path: string, body?: unknown, key?: string): Promise<any>;
  /** SIGTERM, wait for a clean exit, remove the temp dir (unless keep). Returns the exit code. */
  stop(opts?: { keep?: boolean; signal?: NodeJS.Signals }): Promise<number | null>;
}

export interface StartOptions {
  /** Reuse a home/data dir (e.g. after `mailagent init`); default: a fresh temp dir. */
  home?: string;
  dataDir?: string;
  /** Extra `serve` flags. */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
}

const storesByDir = new Map<string, TestDatabase>();

export const READY_LINE = /ready: API (http:\/\/\S+)/;

export function tempHome(): string {
  return mkdtempSync(join(tmpdir(), 'mailagent-cli-'));
}

/** Start `mailagent serve --port 0 --smtp-port 0` and wait for its ready line. */
export async function startDaemon(opts: StartOptions = {}): Promise<TestDaemon> {
  assertBuilt();
  const home = opts.home ?? tempHome();
  const dataDir = opts.dataDir ?? join(home, 'data', 'mailagent');
  // The PostgreSQL run: a database of its own unless the test names one (MAILAGENT_DATABASE_URL)
  // or has set up a SQLite data dir itself (`mailagent init` before); the same database again
  // when a test restarts a daemon on its data dir.
  const ownSqlite = existsSync(join(dataDir, 'mailagent.db'));
  const store: TestDatabase | null = opts.env?.MAILAGENT_DATABASE_URL || ownSqlite ? null : (storesByDir.get(dataDir) ?? await testDatabase(dataDir));
  if (store) storesByDir.set(dataDir, store);
  mkdirSync(dataDir, { recursive: true }); // as the SQLite daemon does: tests put files beside it
  const env = isolatedEnv(home, { ...(store?.url ? { MAILAGENT_DATABASE_URL: store.url } : {}), ...opts.env });
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--smtp-port', '0', '--data-dir', dataDir, ...(opts.args ?? [])], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  child.stderr!.setEncoding('utf8');
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`daemon not ready in ${opts.timeoutMs ?? 20_000} ms:\n${err}`));
    }, opts.timeoutMs ?? 20_000);
    child.stderr!.on('data', (d: string) => {
      err += d;
      const m = READY_LINE.exec(err);
      if (m) {
        clearTimeout(timer);
        resolveUrl(m[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`daemon exited (${code}) before it was ready:\n${err}\n${out}`));
    });
  });
  const profileFile = join(env.XDG_CONFIG_HOME!, 'mailagent', 'config.json');
  const profile = existsSync(profileFile)
    ? (JSON.parse(readFileSync(profileFile, 'utf8')) as { profiles: Record<string, { base_url?: string; live_key?: string; test_key?: string }> }).profiles.default
    : undefined;
  // A profile saved by `init` names the default port; point the CLI at the port we really got.
  if (profile?.base_url !== url) env.MAILAGENT_BASE_URL = url;
  let stopped: Promise<number | null> | null = null;
  return {
    url,
    dataDir,
    home,
    env,
    liveKey: profile?.live_key ?? '',
    testKey: profile?.test_key ?? '',
    child,
    stderr: () => err,
    cli: (args, o = {}) => runCli(args, { ...o, env: { ...env, ...o.env } }),
    async api(method, path, body, key = profile?.test_key ?? '') {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      const json = await res.json();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
      return json;
    },
    stop(o = {}) {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill(o.signal ?? 'SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
        const code = await exited;
        clearTimeout(timer);
        if (!o.keep && !opts.home) rmSync(home, { recursive: true, force: true });
        if (!o.keep && store) {
          storesByDir.delete(dataDir);
          await store.drop();
        }
        return code;
      })();
      return stopped;
    },
  };
}

/** A long-running CLI process (tail, listen) whose output we watch while it runs. */
export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves once `test` holds for the output so far (rejects after timeoutMs with the output). */
  until(test: (out: { stdout: string; stderr: string }) => boolean, timeoutMs?: number): Promise<void>;
  /** Ctrl-C, then the exit code. */
  interrupt(): Promise<number | null>;
}

export function spawnCli(args: string[], env: NodeJS.ProcessEnv): Running {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const watchers = new Set<() => void>();
  const poke = () => { for (const w of [...watchers]) w(); };
  child.stdout!.setEncoding('utf8').on('data', (d: string) => { out += d; poke(); });
  child.stderr!.setEncoding('utf8').on('data', (d: string) => { err += d; poke(); });
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => { poke(); r(code); }));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    until(test, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (test({ stdout: out, stderr: err })) {
            watchers.delete(check);
            clearTimeout(timer);
            resolve();
          } else if (child.exitCode !== null) {
            watchers.delete(check);
            clearTimeout(timer);
            reject(new Error(`mailagent ${args.join(' ')} exited (${child.exitCode})\nstdout: ${out}\nstderr: ${err}`));
          }
        };
        const timer = setTimeout(() => {
          watchers.delete(check);
          reject(new Error(`timed out waiting on mailagent ${args.join(' ')}\nstdout: ${out}\nstderr: ${err}`));
        }, timeoutMs);
        watchers.add(check);
        check();
      });
    },
    async interrupt() {
      if (child.exitCode === null) child.kill('SIGINT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
