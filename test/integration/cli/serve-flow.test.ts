import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, startDaemon, type TestDaemon } from '../../helpers/daemon.js';

// End-to-end: the real CLI binary against a real daemon on port 0 (test/helpers/daemon.ts).
const ERROR_LINE = /^error: .+ \(code [a-z_]+(, param [^,]+)?, request req_[0-9a-z]+\)$/m;

describe('serve on a fresh data dir, then the CLI against it', () => {
  let d: TestDaemon;
  beforeAll(async () => { d = await startDaemon(); });
  afterAll(async () => { await d?.stop(); });

  it('bootstraps itself, prints the keys once on stderr and saves a 0600 profile', () => {
    const err = d.stderr();
    expect(err).toContain(d.testKey);
    expect(err).toContain(d.liveKey);
    expect(d.testKey).toMatch(/^mk_test_[0-9a-f]{32}$/);
    expect(d.liveKey).toMatch(/^mk_live_[0-9a-f]{32}$/);
    expect(err.match(/ready: API /g)?.length).toBe(1);
    const file = join(d.env.XDG_CONFIG_HOME!, 'mailagent', 'config.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8')).profiles.default.base_url).toBe(d.url);
    expect(d.env.MAILAGENT_BASE_URL).toBeUndefined(); // the saved profile alone is enough
  });

  it('whoami uses the test key by default and the live key with --live', async () => {
    const [test, live, human] = await Promise.all([d.cli(['whoami', '--json']), d.cli(['--live', 'whoami', '--json']), d.cli(['whoami'])]);
    expect(test.code, test.stderr).toBe(0);
    expect(test.json().api_key.mode).toBe('test');
    expect(test.json().workspace.slug).toBe('local');
    expect(live.json().api_key.mode).toBe('live');
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^workspace\tlocal \(wsk_/m);
  });

  it('agents create sarah, then get/list/update/pause/resume/archive', async () => {
    const made = await d.cli(['agents', 'create', 'sarah', '--json']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.json()).toMatchObject({ object: 'agent', name: 'sarah', email: 'sarah@local.mailagent.localhost', status: 'active' });

    const got = await d.cli(['agents', 'get', 'sarah', '--json']);
    expect(got.json().id).toBe(made.json().id);

    // Piped, without --json: tab-separated rows, no header, no colour.
    const list = await d.cli(['agents', 'list']);
    expect(list.code).toBe(0);
    const rows = list.stdout.trim().split('\n').map((l) => l.split('\t'));
    expect(rows.map((r) => r[1]).sort()).toEqual(['agent', 'sarah']);
    expect(rows.every((r) => r.length === 5)).toBe(true);
    expect(list.stdout + list.stderr).not.toContain('\x1b[');

    const upd = await d.cli(['agents', 'update', 'sarah', '--hourly-send-limit', '20', '--daily-send-limit', 'none', '--no-classify-inbound', '--json']);
    expect(upd.code, upd.stderr).toBe(0);
    expect(upd.json()).toMatchObject({ hourly_send_limit: 20, classify_inbound: false });
    expect(upd.json()).not.toHaveProperty('daily_send_limit');

    expect((await d.cli(['agents', 'pause', 'sarah', '--json'])).json().status).toBe('paused');
    expect((await d.cli(['agents', 'resume', 'sarah', '--json'])).json().status).toBe('active');

    const refused = await d.cli(['agents', 'archive', 'sarah']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('--yes');

    const archived = await d.cli(['agents', 'archive', 'sarah', '--yes', '--json']);
    expect(archived.code, archived.stderr).toBe(0);
    expect(archived.json()).toMatchObject({ id: made.json().id, status: 'archived' });
    const again = await d.cli(['agents', 'pause', made.json().id]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/code agent_archived/);
    expect(again.stderr).toMatch(ERROR_LINE);
  });

  it('keys create --name ci --scopes send,read --json, list, revoke', async () => {
    const r = await d.cli(['keys', 'create', '--name', 'ci', '--scopes', 'send,read', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const key = r.json();
    expect(key).toMatchObject({ object: 'api_key', name: 'ci', mode: 'test', scopes: ['send', 'read'], agent_id: null });
    expect(key.key).toMatch(/^mk_test_[0-9a-f]{32}$/);

    const list = await d.cli(['keys', 'list', '--json']);
    const listed = list.json().data.find((k: { id: string }) => k.id === key.id);
    expect(listed.name).toBe('ci');
    expect(listed.key).toBeUndefined();

    // The new key works, and its scopes are enforced: no manage → exit 4.
    const who = await d.cli(['whoami', '--json', '--api-key', key.key]);
    expect(who.json().api_key.id).toBe(key.id);
    const denied = await d.cli(['agents', 'create', 'bob', '--api-key', key.key]);
    expect(denied.code).toBe(4);
    expect(denied.stderr).toMatch(/code insufficient_scope/);

    const rev = await d.cli(['keys', 'revoke', key.id, '--yes', '--json']);
    expect(rev.code, rev.stderr).toBe(0);
    expect(rev.json().id).toBe(key.id);
    const gone = await d.cli(['whoami', '--api-key', key.key]);
    expect(gone.code).toBe(4);
    expect(gone.stderr).toMatch(/code revoked_api_key/);
  });

  it('keys create prints only the key on stdout when not --json', async () => {
    const r = await d.cli(['keys', 'create', '--name', 'plain', '--scopes', 'read']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^mk_test_[0-9a-f]{32}$/);
    expect(r.stderr).toContain('shown once');
  });

  it('keys create without the required flags off a terminal is a usage error naming the flag', async () => {
    const [noName, noScopes, badScope] = await Promise.all([
      d.cli(['keys', 'create', '--scopes', 'read']),
      d.cli(['keys', 'create', '--name', 'x']),
      d.cli(['keys', 'create', '--name', 'x', '--scopes', 'send,fly']),
    ]);
    expect(noName.code).toBe(2);
    expect(noName.stderr).toContain('missing --name');
    expect(noScopes.code).toBe(2);
    expect(noScopes.stderr).toContain('missing --scopes');
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toContain('"fly"');
  });

  it('api GET /v1/agents prints the page; POST with --data; the envelope on failure', async () => {
    const r = await d.cli(['api', 'GET', '/v1/agents', '-q', 'status=all']);
    expect(r.code, r.stderr).toBe(0);
    const page = r.json();
    expect(page.has_more).toBe(false);
    expect(page.data.map((a: { name: string }) => a.name)).toContain('agent');

    const viaApiPrefix = await d.cli(['api', 'GET', '/api/v1/me']);
    expect(viaApiPrefix.json().api_key.mode).toBe('test');

    const post = await d.cli(['api', 'POST', '/v1/agents', '--data', '{"name":"carol"}']);
    expect(post.code, post.stderr).toBe(0);
    expect(post.json().email).toBe('carol@local.mailagent.localhost');

    const fromStdin = await d.cli(['api', 'PATCH', '/v1/agents/carol', '--data', '@-'], { input: '{"status":"paused"}' });
    expect(fromStdin.json().status).toBe('paused');

    const bad = await d.cli(['api', 'GET', '/v1/agents', '-q', 'limit=0']);
    expect(bad.code).toBe(1);
    expect(bad.json().error).toMatchObject({ code: 'invalid_param_value', param: 'limit' });
    expect(bad.stderr).toMatch(ERROR_LINE);
    expect(bad.stderr).toContain(`request ${bad.json().error.request_id}`);

    const badJson = await d.cli(['api', 'POST', '/v1/agents', '--data', '{nope']);
    expect(badJson.code).toBe(2);
    expect(badJson.stderr).toContain('--data is not valid JSON');
  });

  it('exit codes: 1 for an API error, 2 for usage, 4 for authentication', async () => {
    const [notFound, unknownOpt, badLimit, badStatus, noVerb, badKey, noProfile] = await Promise.all([
      d.cli(['agents', 'get', 'nobody']),
      d.cli(['agents', 'list', '--colour']),
      d.cli(['agents', 'list', '--limit', 'ten']),
      d.cli(['agents', 'list', '--status', 'gone']),
      d.cli(['agents']),
      d.cli(['whoami', '--api-key', 'mk_test_00000000000000000000000000000000']),
      d.cli(['whoami'], { env: { XDG_CONFIG_HOME: join(d.home, 'elsewhere') } }),
    ]);
    expect(notFound.code).toBe(1);
    expect(notFound.stderr).toMatch(ERROR_LINE);
    expect(notFound.stderr).toMatch(/code agent_not_found/);

    expect(unknownOpt.code).toBe(2);
    expect(badLimit.code).toBe(2);
    expect(badLimit.stderr).toContain('--limit');
    expect(badStatus.code).toBe(2);
    expect(noVerb.code).toBe(2);

    expect(badKey.code).toBe(4);
    expect(badKey.stderr).toMatch(/code invalid_api_key/);
    expect(noProfile.code).toBe(4);
    expect(noProfile.stderr).toContain('no API key');
  });

  it('MAILAGENT_API_KEY beats the profile, --api-key beats both', async () => {
    const env = { MAILAGENT_API_KEY: d.liveKey };
    const [fromEnv, fromFlag] = await Promise.all([d.cli(['whoami', '--json'], { env }), d.cli(['whoami', '--json', '--api-key', d.testKey], { env })]);
    expect(fromEnv.json().api_key.mode).toBe('live');
    expect(fromFlag.json().api_key.mode).toBe('test');
  });

  it('completion prints the committed completion scripts', async () => {
    const shells = ['bash', 'zsh', 'fish'];
    const [bad, ...runs] = await Promise.all([d.cli(['completion', 'powershell']), ...shells.map((sh) => d.cli(['completion', sh]))]);
    shells.forEach((shell, i) => {
      expect(runs[i].code).toBe(0);
      expect(runs[i].stdout).toBe(readFileSync(join(ROOT, 'completions', `mailagent.${shell}`), 'utf8'));
    });
    expect(bad.code).toBe(2);
  });

  it('SIGTERM stops the daemon cleanly (exit 0)', async () => {
    expect(await d.stop()).toBe(0);
    expect(d.stderr()).toContain('stopped');
  });
});

