import { describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, ROOT } from '../../helpers/daemon.js';

const UNIT = join(ROOT, 'contrib', 'systemd', 'mailagent.service');
const has = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;

/** `Key=value` lines of a unit section (later lines win, as in systemd). */
function section(text: string, name: string): Map<string, string> {
  const out = new Map<string, string>();
  let inside = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (/^\[.*\]$/.test(line)) inside = line === `[${name}]`;
    else if (inside && line && !line.startsWith('#')) {
      const i = line.indexOf('=');
      out.set(line.slice(0, i), line.slice(i + 1));
    }
  }
  return out;
}

describe('contrib/systemd/mailagent.service', () => {
  const text = readFileSync(UNIT, 'utf8');
  const svc = section(text, 'Service');

  it('passes systemd-analyze verify (with ExecStart pointing at this checkout\'s binary)', (ctx) => {
    if (!has('systemd-analyze', ['--version'])) return ctx.skip('systemd-analyze is not installed on this machine');
    const dir = mkdtempSync(join(tmpdir(), 'mailagent-unit-'));
    try {
      const unit = join(dir, 'mailagent.service');
      writeFileSync(unit, text.replaceAll('/usr/local/bin/mailagent', BIN));
      const r = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
      expect(r.status, r.stderr + r.stdout).toBe(0);
      expect(r.stderr.trim()).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('runs as a dedicated user with a state directory, hardened, with a readiness probe and a stop timeout above the drain', () => {
    expect(svc.get('User')).toBe('mailagent');
    expect(svc.get('StateDirectory')).toBe('mailagent');
    expect(svc.get('Environment') ?? text).toBeDefined();
    expect(text).toMatch(/^Environment=MAILAGENT_DATA_DIR=\/var\/lib\/mailagent$/m);
    // The main thread's new space, settable only before node starts (docs/self-hosting.md → Memory).
    expect(text).toMatch(/^Environment=NODE_OPTIONS=--max-semi-space-size=4$/m);
    // glibc reads it when the process starts: only a launcher can set it (docs/self-hosting.md → Memory).
    expect(text).toMatch(/^Environment=MALLOC_ARENA_MAX=2$/m);
    for (const [k, v] of [['ProtectSystem', 'strict'], ['NoNewPrivileges', 'yes'], ['PrivateTmp', 'yes'], ['ProtectHome', 'yes'], ['CapabilityBoundingSet', '']]) {
      expect(svc.get(k), k).toBe(v);
    }
    expect(svc.get('ExecStartPost')).toMatch(/mailagent health --ready .* --wait \d+s$/);
    // Daemon.stop drains for 10 s and the CLI forces exit 2 s later.
    expect(parseInt(svc.get('TimeoutStopSec')!, 10)).toBeGreaterThan(12);
    expect(svc.get('KillSignal')).toBe('SIGTERM');
  });

  it('systemd-analyze security rates the unit OK (exposure below 3)', (ctx) => {
    if (!has('systemd-analyze', ['--version'])) return ctx.skip('systemd-analyze is not installed on this machine');
    const dir = mkdtempSync(join(tmpdir(), 'mailagent-unit-'));
    try {
      const unit = join(dir, 'mailagent.service');
      writeFileSync(unit, text.replaceAll('/usr/local/bin/mailagent', BIN));
      const r = spawnSync('systemd-analyze', ['security', '--offline=yes', unit], { encoding: 'utf8' });
      const m = /Overall exposure level for mailagent\.service: ([\d.]+)/.exec(r.stdout);
      if (!m) return ctx.skip('this systemd-analyze has no --offline');
      expect(Number(m[1])).toBeLessThan(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/**
 * No container engine runs on this machine (the `docker` CLI has no daemon; podman is not
 * installed, and base images cannot be pulled without registry access), so the Dockerfile is
 * linted here: hadolint's main rules that apply, plus checks that every COPY source exists.
 * When a working engine is present, the image is built and its health check run.
 */
describe('Dockerfile and compose example', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  // Join continuation lines, drop comments.
  const instructions = text.replace(/\\\n/g, ' ').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#'))
    .map((l) => { const [op, ...rest] = l.split(/\s+/); return { op: op.toUpperCase(), args: rest.join(' ') }; });
  const stages = instructions.filter((i) => i.op === 'FROM');
  const final = instructions.slice(instructions.lastIndexOf(stages[stages.length - 1]));

  it('is multi-stage with pinned base images', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const s of stages) expect(s.args, 'DL3006/DL3007: pin the tag').toMatch(/^\S+:(?!latest)\S+/);
  });

  it('final stage: not root, a data volume, ports 7420 and 2525, a HEALTHCHECK, exec-form entrypoint', () => {
    const users = final.filter((i) => i.op === 'USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users[users.length - 1].args).not.toMatch(/^(root|0)$/);
    expect(final.find((i) => i.op === 'VOLUME')?.args).toMatch(/\/data/);
    expect(final.find((i) => i.op === 'EXPOSE')?.args.split(/\s+/).sort()).toEqual(['2525', '7420']);
    expect(final.find((i) => i.op === 'HEALTHCHECK')?.args).toMatch(/CMD \["mailagent", "health", "--ready"/);
    expect(final.find((i) => i.op === 'ENTRYPOINT')?.args).toMatch(/^\[/);
    expect(final.find((i) => i.op === 'ENV')?.args).toMatch(/MAILAGENT_DATA_DIR=\/data/);
    expect(final.find((i) => i.op === 'ENV')?.args).toMatch(/NODE_OPTIONS=--max-semi-space-size=4/);
    expect(final.find((i) => i.op === 'ENV')?.args).toMatch(/MALLOC_ARENA_MAX=2/);
  });

  it('follows hadolint rules that apply: apt without recommends and with cleanup, npm ci, no ADD, WORKDIR absolute', () => {
    for (const run of instructions.filter((i) => i.op === 'RUN' && /apt-get install/.test(i.args))) {
      expect(run.args, 'DL3015').toMatch(/--no-install-recommends/);
      expect(run.args, 'DL3009').toMatch(/rm -rf \/var\/lib\/apt\/lists/);
      expect(run.args).toMatch(/-y/);
    }
    expect(instructions.some((i) => i.op === 'ADD'), 'DL3020: use COPY').toBe(false);
    expect(instructions.some((i) => i.op === 'RUN' && /npm ci/.test(i.args))).toBe(true);
    for (const w of instructions.filter((i) => i.op === 'WORKDIR')) expect(w.args, 'DL3000').toMatch(/^\//);
  });

  it('every COPY from the build context exists and is not excluded by .dockerignore', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter(Boolean);
    for (const c of instructions.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))) {
      const parts = c.args.split(/\s+/);
      for (const src of parts.slice(0, -1)) {
        expect(existsSync(join(ROOT, src)), `COPY ${src}`).toBe(true);
        expect(ignored.includes(src.replace(/\/$/, '')), `${src} is in .dockerignore`).toBe(false);
      }
    }
  });

  it('the build stage copies every file its build script reads (the scripts/ step was missing: `npm run build` failed)', () => {
    const build = instructions.slice(0, instructions.indexOf(stages[1]));
    const copied = build.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from')).flatMap((c) => c.args.split(/\s+/).slice(0, -1).map((src) => src.replace(/\/$/, '')));
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(build.some((i) => i.op === 'RUN' && /npm run build/.test(i.args))).toBe(true);
    // The paths the build script names (tsconfig files, node scripts), each inside something copied.
    const paths = pkg.scripts.build.split(/\s+/).filter((t) => /\.(json|mjs|js|ts)$/.test(t) || t.includes('/'));
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) expect(copied.some((c) => path === c || path.startsWith(`${c}/`)), `${path} is not copied into the build stage`).toBe(true);
  });

  it('compose example: valid YAML, the data volume, both ports, a stop grace period above the drain', (ctx) => {
    if (!has('python3', ['-c', 'import yaml'])) return ctx.skip('no YAML parser (python3-yaml) here');
    const json = execFileSync('python3', ['-c', 'import sys, yaml, json; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))', join(ROOT, 'contrib', 'docker', 'compose.yaml')], { encoding: 'utf8' });
    const svc = JSON.parse(json).services.mailagent;
    expect(svc.volumes).toContain('mailagent-data:/data');
    expect(svc.ports.join(' ')).toMatch(/:7420/);
    expect(svc.ports.join(' ')).toMatch(/:2525/);
    expect(parseInt(svc.stop_grace_period, 10)).toBeGreaterThan(12);
    expect(svc.build.context).toBe('../..');
  });

  it('builds and reports healthy when a container engine can run here', (ctx) => {
    const engine = ['podman', 'docker'].find((e) => has(e, ['info']));
    if (!engine) return ctx.skip('no container engine can run on this machine (docker has no daemon, podman absent)');
    execFileSync(engine, ['build', '-t', 'mailagent:test', ROOT], { stdio: 'inherit', timeout: 600_000 });
  }, 600_000);
});
