import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, ROOT, startDaemon, type CliResult, type TestDaemon } from '../../helpers/daemon.js';
import { DRAFT_STATUSES as CONTRACT_DRAFT_STATUSES } from '../../../src/contract/drafts.js';
import { THREAD_STATUSES as CONTRACT_THREAD_STATUSES } from '../../../src/contract/threads.js';
import { SUPPRESSION_TYPES as CONTRACT_SUPPRESSION_TYPES } from '../../../src/contract/suppression.js';
import { LOG_CATEGORIES as CONTRACT_LOG_CATEGORIES } from '../../../src/contract/account.js';
import { DRAFT_STATUSES } from '../../../src/cli/commands/drafts.js';
import { THREAD_STATUSES } from '../../../src/cli/commands/threads.js';
import { SUPPRESSION_TYPES } from '../../../src/cli/commands/suppression.js';
import { LOG_CATEGORIES } from '../../../src/cli/commands/logs.js';
import { buildProgram } from '../../../src/cli/program.js';
import { examplesOf } from '../../../src/cli/context.js';

// End-to-end: `mailagent drafts|threads|labels|suppression|domains|reputation|usage|logs` (the real
// binary) against a real daemon. One daemon for the file; each test walks a whole noun.
const ERROR_LINE = /^error: .+ \(code [a-z_]+(, param [^,]+)?, request req_[0-9a-z]+\)$/m;

let d: TestDaemon;
beforeAll(async () => { d = await startDaemon(); });
afterAll(async () => { await d?.stop(); });

const api = (method: string, path: string, body?: unknown, key?: string) => d.api(method, path, body, key);

/** A test key with only these scopes (optionally bound to the default agent). */
async function key(scopes: string[], bound = false): Promise<string> {
  return (await api('POST', '/v1/api-keys', { name: `k-${scopes.join('-')}`, scopes, mode: 'test', ...(bound ? { agent_id: 'agent' } : {}) })).key;
}

const ok = (r: CliResult) => expect(r.code, `stdout: ${r.stdout}\nstderr: ${r.stderr}`).toBe(0);
const rows = (r: CliResult) => r.stdout.trim().split('\n').filter(Boolean).map((l) => l.split('\t'));

/** An API refusal: the exit code, one error line naming the code and request id, nothing on stdout. */
function refused(r: CliResult, exit: number, code: string): void {
  expect(r.code, r.stderr).toBe(exit);
  expect(r.stderr).toMatch(ERROR_LINE);
  expect(r.stderr).toContain(`code ${code}`);
  expect(r.stdout).toBe('');
}

function usage(r: CliResult, text: string | RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  expect(r.stderr).toMatch(text);
}

it('every command of these nouns has --help examples; destructive verbs take --yes', () => {
  const program = buildProgram();
  const nouns = ['drafts', 'threads', 'labels', 'suppression', 'domains', 'reputation', 'usage', 'logs'];
  const leaves = nouns.flatMap((n) => {
    const c = program.commands.find((x) => x.name() === n)!;
    return c.commands.length ? c.commands.map((s) => [`${n} ${s.name()}`, s] as const) : [[n, c] as const];
  });
  expect(leaves.length).toBe(6 + 6 + 4 + 6 + 5 + 3);
  for (const [name, cmd] of leaves) {
    expect(examplesOf(cmd).length, name).toBeGreaterThan(0);
    for (const e of examplesOf(cmd)) expect(e, name).toMatch(new RegExp(`mailagent (--live )?${name}( |$)`));
  }
  for (const name of ['drafts delete', 'threads delete', 'labels delete', 'domains remove']) {
    expect(leaves.find(([n]) => n === name)![1].options.map((o) => o.long), name).toContain('--yes');
  }
});

it('keeps its local copies of the contract enums in step', () => {
  expect(DRAFT_STATUSES).toEqual([...CONTRACT_DRAFT_STATUSES]);
  expect(THREAD_STATUSES).toEqual([...CONTRACT_THREAD_STATUSES]);
  expect(SUPPRESSION_TYPES).toEqual([...CONTRACT_SUPPRESSION_TYPES]);
  expect(LOG_CATEGORIES).toEqual([...CONTRACT_LOG_CATEGORIES]);
});


describe('drafts', () => {
  it('create (body on stdin), list, get, update, schedule, unschedule, send, delete and the refusals', async () => {
    const [made, other, draftKey] = await Promise.all([
      d.cli(['drafts', 'create', '--agent', 'agent', '--to', 'bob@example.com', '--subject', 'Quarterly', '--json'], { input: 'Numbers attached.\n' }),
      d.cli(['drafts', 'create', '--subject', 'Empty for now', '--body', '']),
      key(['draft']),
    ]);
    ok(made);
    const draft = made.json();
    expect(draft).toMatchObject({ object: 'draft', status: 'draft', to: ['bob@example.com'], subject: 'Quarterly', body_text: 'Numbers attached.\n', test_mode: true });
    expect(draft.id).toMatch(/^dft_/);
    ok(other);
    // Piped (not a terminal): the id alone, so D=$(mailagent drafts create …) works.
    expect(other.stdout).toMatch(/^dft_\S+\n$/);
    const otherId = other.stdout.trim();

    const [list, got, edited] = await Promise.all([
      d.cli(['drafts', 'list']),
      d.cli(['drafts', 'get', draft.id]),
      d.cli(['drafts', 'update', otherId, '--to', 'dave@example.com', '--body', 'Later', '--json']),
    ]);
    // Human list: tab-separated rows when piped, newest first.
    expect(rows(list).map((r) => [r[0], r[1]])).toEqual([draft.id, otherId].sort().reverse().map((id) => [id, 'draft']));
    expect(got.stdout).toMatch(/^subject\tQuarterly$/m);
    expect(got.stdout).toMatch(/^mode\ttest$/m);
    expect(got.stdout.trimEnd().endsWith('Numbers attached.')).toBe(true);
    ok(edited);
    expect(edited.json()).toMatchObject({ subject: 'Empty for now', to: ['dave@example.com'], body_text: 'Later' });

    const scheduled = await d.cli(['drafts', 'update', draft.id, '--subject', 'Q3 numbers', '--send-at', '+2h', '--json']);
    ok(scheduled);
    expect(scheduled.json()).toMatchObject({ status: 'scheduled', subject: 'Q3 numbers', body_text: 'Numbers attached.\n' });
    expect(Date.parse(scheduled.json().send_at)).toBeGreaterThan(Date.now() + 3_600_000);
    const [unscheduled, badTime, noYes, draftOnly] = await Promise.all([
      d.cli(['drafts', 'update', draft.id, '--unschedule', '--json']),
      d.cli(['drafts', 'update', draft.id, '--send-at', 'next tuesday']),
      d.cli(['drafts', 'delete', otherId]),
      // A draft-only key may write drafts but never send one: 403 → exit 4.
      d.cli(['--api-key', draftKey, 'drafts', 'send', draft.id]),
    ]);
    expect(unscheduled.json()).toMatchObject({ status: 'draft' });
    expect(unscheduled.json()).not.toHaveProperty('send_at');
    usage(badTime, /--send-at "next tuesday" is not a time/);
    usage(noYes, /--yes/);
    refused(draftOnly, 4, 'insufficient_scope');

    const sent = await d.cli(['drafts', 'send', draft.id]);
    ok(sent);
    const msgId = sent.stdout.trim();
    expect(msgId).toMatch(/^msg_/);
    expect(sent.stderr).toContain(`${draft.id} sent`);
    expect(await api('GET', `/v1/drafts/${draft.id}`)).toMatchObject({ status: 'sent', sent_message_id: msgId });
    expect((await api('GET', `/v1/messages/${msgId}`)).subject).toBe('Q3 numbers');

    // Within the scheduling horizon (365 days), to the second.
    const sendAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 30 * 86_400_000).toISOString();
    const [again, later] = await Promise.all([
      // A sent draft cannot be sent (or changed, or deleted) again: 409 → exit 1.
      d.cli(['drafts', 'send', draft.id]),
      // send --at schedules instead; --json prints the API answer unchanged.
      d.cli(['drafts', 'send', otherId, '--at', sendAt, '--json']),
    ]);
    refused(again, 1, 'duplicate_resource');
    ok(later);
    expect(later.json()).toEqual({ id: otherId, status: 'scheduled', send_at: sendAt });

    const deleted = await d.cli(['drafts', 'delete', otherId, '--yes']);
    ok(deleted);
    expect(deleted.stderr).toContain(`${otherId} deleted`);
    refused(await d.cli(['drafts', 'get', otherId]), 1, 'resource_not_found');
  });
});

describe('threads and labels', () => {
  it('list, get in order, label, rename, status, trash, restore, delete and the refusals', async () => {
    const sent = await api('POST', '/v1/messages', { to: 'erin@example.com', subject: 'Shipping date', body_text: 'When does it ship?' });
    await api('POST', '/v1/test/inbound', {
      agent: 'agent', from: 'erin@example.com', from_name: 'Erin', subject: 'Re: Shipping date', body_text: 'Next Monday.', in_reply_to_message_id: sent.id,
    });
    const threadId: string = sent.thread_id;

    const [list, got, human, label, boundKey] = await Promise.all([
      d.cli(['threads', 'list']),
      d.cli(['threads', 'get', threadId, '--json']),
      d.cli(['threads', 'get', threadId]),
      d.cli(['labels', 'create', 'billing']),
      key(['send', 'read'], true),
    ]);
    ok(list);
    expect(rows(list).find((r) => r[0] === threadId)!.slice(1, 3)).toEqual(['open', '2']);
    ok(got);
    expect(got.json().messages.map((m: any) => [m.direction, m.from])).toEqual([
      ['outbound', 'agent@local.mailagent.localhost'], ['inbound', 'erin@example.com'],
    ]);
    expect(human.stdout).toMatch(/^subject\tShipping date$/m);
    expect(rows(human).filter((r) => /^(msg|rcv)_/.test(r[0])).map((r) => r[1])).toEqual(['out', 'in']);
    ok(label);
    expect(label.stdout.trim()).toMatch(/^lbl_/);

    const updated = await d.cli(['threads', 'update', threadId, '--label', 'billing', '--label', 'urgent', '--status', 'closed', '--json']);
    ok(updated);
    expect(updated.json()).toMatchObject({ id: threadId, labels: ['billing', 'urgent'], status: 'closed' });
    const [labels, filtered, nothing, bound] = await Promise.all([
      d.cli(['labels', 'list']),
      d.cli(['threads', 'list', '--label', 'billing', '--status', 'closed']),
      d.cli(['threads', 'update', threadId]),
      // Agent-bound keys may not make labels: 403 → exit 4.
      d.cli(['--api-key', boundKey, 'labels', 'create', 'mine']),
    ]);
    expect(rows(labels).map((r) => r[1]).sort()).toEqual(['billing', 'urgent']);
    expect(rows(filtered).map((r) => r[0])).toEqual([threadId]);
    usage(nothing, /nothing to change/);
    refused(bound, 4, 'insufficient_scope');

    const [renamed, removed] = await Promise.all([
      d.cli(['labels', 'rename', 'billing', 'invoices']),
      d.cli(['labels', 'delete', 'urgent', '--yes']),
    ]);
    ok(renamed);
    expect(renamed.stderr).toContain('renamed to invoices');
    ok(removed);
    expect((await api('GET', `/v1/threads/${threadId}`)).labels).toEqual(['invoices']);

    const trashed = await d.cli(['threads', 'trash', threadId, '--json']);
    ok(trashed);
    expect(trashed.json().trashed_at).toBeTruthy();
    const trash = await d.cli(['threads', 'list', '--trashed']);
    expect(rows(trash).find((r) => r[0] === threadId)![1]).toBe('closed (trash)');
    expect((await api('GET', '/v1/threads')).data.map((t: any) => t.id)).not.toContain(threadId);
    ok(await d.cli(['threads', 'restore', threadId]));
    expect((await api('GET', '/v1/threads')).data.map((t: any) => t.id)).toContain(threadId);

    usage(await d.cli(['threads', 'delete', threadId]), /--yes/);
    const del = await d.cli(['threads', 'delete', threadId, '--yes', '--json']);
    ok(del);
    expect(del.json().id).toBe(threadId);
    refused(await d.cli(['threads', 'get', threadId]), 1, 'resource_not_found');
  });
});

describe('suppression', () => {
  it('get, add, list, allow (with attestation), allowed, unallow and the refusals', async () => {
    const before = await d.cli(['suppression', 'get', 'frank@example.com', '--json']);
    ok(before);
    expect(before.json()).toMatchObject({ object: 'suppression_lookup', address: 'frank@example.com', suppressed: false });

    // Adding a suppression changes live sending: the default test key is refused, --live adds it.
    refused(await d.cli(['suppression', 'add', 'frank@example.com', '--reason', 'asked by phone']), 4, 'live_mode_required');
    const added = await d.cli(['--live', 'suppression', 'add', 'frank@example.com', '--reason', 'asked by phone']);
    ok(added);
    const supId = added.stdout.trim();
    expect(supId).toMatch(/^sup_/);
    const [human, list, noAttestation, short] = await Promise.all([
      d.cli(['suppression', 'get', 'frank@example.com']),
      d.cli(['suppression', 'list']),
      d.cli(['suppression', 'allow', 'frank@example.com']),
      d.cli(['suppression', 'allow', 'frank@example.com', '--attestation', 'said yes']),
    ]);
    expect(human.stdout).toMatch(/^suppressed\tyes$/m);
    expect(human.stdout).toMatch(/^type\tunsubscribe$/m);
    expect(human.stdout).toMatch(/^scope\tworkspace$/m);
    expect(rows(list).find((r) => r[0] === supId)).toEqual([supId, 'frank@example.com', 'unsubscribe', 'workspace', 'yes', 'asked by phone', expect.any(String)]);
    usage(noAttestation, /missing --attestation/);
    refused(short, 1, 'invalid_param_value');
    expect(short.stderr).toContain('param attestation');

    const allowed = await d.cli(['suppression', 'allow', 'frank@example.com', '--attestation', 'Frank re-subscribed on our form on 2026-03-02', '--json']);
    ok(allowed);
    const allow = allowed.json();
    expect(allow).toMatchObject({ object: 'suppression_allow', address: 'frank@example.com' });
    const [allowList, byAddress] = await Promise.all([
      d.cli(['suppression', 'allowed']),
      d.cli(['suppression', 'unallow', 'frank@example.com']),
    ]);
    expect(rows(allowList).map((r) => r[0])).toEqual([allow.id]);
    usage(byAddress, /alw_/);
    expect((await api('GET', '/v1/suppression?address=frank@example.com')).allowed).toMatchObject({ id: allow.id });

    const undone = await d.cli(['suppression', 'unallow', allow.id]);
    ok(undone);
    expect(undone.stderr).toContain(`${allow.id} revoked`);
    expect(await api('GET', '/v1/suppression?address=frank@example.com')).toMatchObject({ suppressed: true });
    const all = await d.cli(['suppression', 'allowed', '--include-revoked', '--json']);
    expect(all.json().data).toEqual([expect.objectContaining({ id: allow.id, revoked_at: expect.any(String) })]);
  });
});

describe('domains', () => {
  it('add prints the records to publish; list, get, verify (exit 1 until verified), remove', async () => {
    // `.invalid` never resolves (RFC 2606), so verify is a real lookup that finds nothing.
    const added = await d.cli(['domains', 'add', 'mail.example.invalid']);
    ok(added);
    expect(added.stdout).toMatch(/^domain\tmail\.example\.invalid$/m);
    expect(added.stdout).toMatch(/^status\tpending$/m);
    const recs = rows(added).filter((r) => r[1] === 'TXT');
    expect(recs.map((r) => [r[0], r[2], r[3]])).toEqual([
      ['verification', '_mailagent.mail.example.invalid', 'pending'],
      ['spf', 'mail.example.invalid', 'pending'],
      ['dkim', 'mailagent._domainkey.mail.example.invalid', 'pending'],
    ]);
    expect(recs[2][4]).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/);
    // This daemon has no relay and a loopback public URL: no SPF host to name, and the note says so.
    expect(recs[1][4]).toBe('v=spf1 ~all');
    expect(added.stderr).toMatch(/^spf: This cannot be right yet: no relay is configured.*--relay.*--public-url/m);
    expect(added.stderr).toContain('mailagent domains verify mail.example.invalid');
    const id = added.stdout.match(/^id\t(dom_\S+)$/m)![1];

    const [list, got, verify, noYes] = await Promise.all([
      d.cli(['domains', 'list']),
      d.cli(['domains', 'get', 'mail.example.invalid', '--json']),
      d.cli(['domains', 'verify', id, '--json']),
      d.cli(['domains', 'remove', id]),
    ]);
    expect(rows(list).map((r) => r.slice(0, 2))).toEqual([[id, 'mail.example.invalid']]); // status races the verify
    expect(got.json()).toMatchObject({ id, object: 'domain', records: expect.any(Array) });
    expect(verify.code).toBe(1);
    expect(verify.json()).toMatchObject({ id, status: 'failed', last_checked_at: expect.any(String), last_error: expect.any(String) });
    expect(verify.stderr).toMatch(/^error: mail\.example\.invalid is not verified: /m);
    usage(noYes, /--yes/);

    const removed = await d.cli(['domains', 'remove', 'mail.example.invalid', '--yes']);
    ok(removed);
    expect(removed.stderr).toContain(`${id} removed`);
    refused(await d.cli(['domains', 'get', id]), 1, 'resource_not_found');
  });
});

describe('reputation, usage, logs', () => {
  it('reputation and usage as records and as the API objects', async () => {
    const [rep, one, nobody, use, human, bound] = await Promise.all([
      d.cli(['reputation', '--json']),
      d.cli(['reputation', '--agent', 'agent']),
      d.cli(['reputation', '--agent', 'nobody']),
      d.cli(['usage', '--json']),
      d.cli(['usage']),
      key(['read'], true).then((k) => d.cli(['--api-key', k, 'usage'])),
    ]);
    ok(rep);
    expect(rep.json()).toMatchObject({ object: 'reputation', reputation: 1, send_count_30d: 0 });
    ok(one);
    expect(one.stdout).toMatch(/^agent_id\tagt_\S+$/m);
    expect(one.stdout).toMatch(/^reputation\t1\.000$/m);
    refused(nobody, 1, 'agent_not_found');
    ok(use);
    expect(use.json()).toMatchObject({ object: 'usage', tier: 'free', caps: { monthly_parses: 3000 } });
    ok(human);
    expect(human.stdout).toMatch(/^tier\tfree \(/m);
    expect(rows(human).find((r) => r[0] === 'parses (received)')![2]).toBe('3000');
    refused(bound, 4, 'insufficient_scope');
  });

  it('logs lists and filters the audit log, and --follow prints only new entries until Ctrl-C', async () => {
    await api('POST', '/v1/labels', { name: 'audit-one' });
    const [list, json, bad] = await Promise.all([
      d.cli(['logs', '--category', 'label', '--action', 'label.created']),
      d.cli(['logs', '--category', 'label', '--limit', '1', '--json']),
      d.cli(['logs', '--category', 'nonsense']),
    ]);
    ok(list);
    expect(rows(list)[0][1]).toBe('label.created');
    expect(rows(list)[0][5]).toContain('audit-one');
    expect(json.json()).toMatchObject({ data: [{ object: 'log', category: 'label', action: 'label.created' }] });
    usage(bad, /--category.*nonsense/);

    const child = spawn(process.execPath, [BIN, 'logs', '--category', 'label', '--follow', '--json', '--limit', '1'], { cwd: ROOT, env: d.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr!.setEncoding('utf8').on('data', (s: string) => (err += s));
    const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
    const until = async (test: () => boolean, what: string) => {
      const end = Date.now() + 15_000;
      while (!test()) {
        if (Date.now() > end || child.exitCode !== null) throw new Error(`waiting for ${what}\nstdout: ${out}\nstderr: ${err}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const names = () => out.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l).metadata.name as string);
    try {
      await until(() => err.includes('Following'), 'the follow banner');
      expect(names()).toEqual(['audit-one']);
      await api('POST', '/v1/labels', { name: 'audit-two' });
      await until(() => names().includes('audit-two'), 'audit-two');
      await api('POST', '/v1/labels', { name: 'audit-three' });
      await until(() => names().includes('audit-three'), 'audit-three');
      // Several polls later every entry is still printed once, oldest first.
      expect(names()).toEqual(['audit-one', 'audit-two', 'audit-three']);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(130);
  });
});
