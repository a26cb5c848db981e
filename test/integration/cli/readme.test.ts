/**
 * The README's quickstart examples, run top to bottom in a fresh shell against a real daemon.
 * The fenced blocks whose info string is `sh readme-test` are extracted in order and run as one
 * bash script (`set -euo pipefail`, so any failing line fails the test), with `mailagent` on PATH
 * as a wrapper around this checkout's bin/mailagent — what `npm link` gives a reader — and a
 * fresh HOME / XDG directories holding only the profile `serve` saved.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, startDaemon, type TestDaemon } from '../../helpers/daemon.js';

let d: TestDaemon;

/** The `sh readme-test` blocks of README.md, in order. */
export function readmeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh readme-test\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
}

beforeAll(async () => {
  d = await startDaemon();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe('README examples', () => {
  it('run in the order written, every line succeeding', async () => {
    const blocks = readmeBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThan(0);
    const script = blocks.join('\n');
    expect(script).toMatch(/mailagent send --agent/);

    const bin = join(d.home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'mailagent'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'mailagent'), 0o755);

    const env = { ...d.env, PATH: `${bin}:${process.env.PATH}` };
    const res = await new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const child = spawn('bash', ['-euo', 'pipefail', '-c', script], { cwd: d.home, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      child.stdout.on('data', (c) => (out += c));
      child.stderr.on('data', (c) => (err += c));
      const timer = setTimeout(() => child.kill('SIGKILL'), 110_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        resolve({ code, out, err });
      });
    });
    expect(res.code, `stdout:\n${res.out}\nstderr:\n${res.err}`).toBe(0);
    // The documented results: the code printed by `wait --extract code`, sarah created.
    expect(res.out).toMatch(/^482913$/m);
    expect(res.out).toContain('sarah');
  }, 120_000);
});
