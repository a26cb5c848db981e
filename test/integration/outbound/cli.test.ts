import { afterAll, beforeAll, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';

// The CLI uses the profile's TEST key unless --live (see src/cli/README.md).
let d: TestDaemon;
beforeAll(async () => { d = await startDaemon(); });
afterAll(async () => { await d?.stop(); });

it('send prints the id; messages get/list/raw/reply/forward/reschedule/cancel; appeal', async () => {
  const file = join(d.dataDir, 'note.txt');
  writeFileSync(file, 'hello from a file');
  const s = await d.cli(['send', '--to', 'bob@example.com', '--subject', 'Hi', '--body-file', file, '--attach', file, '--tag', 'k=v', '--meta', 'order=1']);
  expect(s.code, s.stderr).toBe(0);
  const id = s.stdout.trim();
  expect(id).toMatch(/^msg_/);
  const g = await d.cli(['messages', 'get', id, '--json']);
  expect(g.code, g.stderr).toBe(0);
  expect(g.json()).toMatchObject({ id, subject: 'Hi', body_text: 'hello from a file', metadata: { order: '1' }, tags: [{ name: 'k', value: 'v' }], test_mode: true });
  const l = await d.cli(['messages', 'list', '--json']);
  expect(l.json().data.map((m: { id: string }) => m.id)).toContain(id);
  const out = join(d.dataDir, 'm.eml');
  const raw = await d.cli(['messages', 'raw', id, '--output', out]);
  expect(raw.code, raw.stderr).toBe(0);
  expect(existsSync(out)).toBe(true);
  const parsed = await simpleParser(readFileSync(out));
  expect(parsed.subject).toBe('Hi');
  expect(parsed.attachments[0].filename).toBe('note.txt');
  const rep = await d.cli(['messages', 'reply', id, '--body', 'again', '--json']);
  expect(rep.code, rep.stderr).toBe(0);
  expect(rep.json().subject).toBe('Re: Hi');
  const fw = await d.cli(['messages', 'forward', id, '--to', 'carol@example.com']);
  expect(fw.code, fw.stderr).toBe(0);
  // Within the scheduling horizon (365 days: SEND_LIMITS.scheduleHorizonDays).
  const day = 86_400_000;
  const sched = await d.cli(['send', '--to', 'bob@example.com', '--subject', 'Later', '--body', 'x', '--at', new Date(Date.now() + 30 * day).toISOString(), '--json']);
  expect(sched.json().status).toBe('scheduled');
  const mid = sched.json().id;
  const rs = await d.cli(['messages', 'reschedule', mid, '--at', new Date(Date.now() + 60 * day).toISOString()]);
  expect(rs.code, rs.stderr).toBe(0);
  expect((await d.cli(['messages', 'cancel', mid])).code).toBe(0);
  const again = await d.cli(['messages', 'cancel', mid]);
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/duplicate_resource/);
  const piped = await d.cli(['send', '--to', 'bob@example.com', '--subject', 'Piped'], { input: 'body from stdin' });
  expect(piped.code, piped.stderr).toBe(0);
  const usage = await d.cli(['send', '--subject', 'x', '--body', 'y']);
  expect(usage.code).toBe(2);
  expect(usage.stderr).toMatch(/--to/);
  const ap = await d.cli(['appeal', '--subject', 'Your receipt', '--body', 'Thanks for your order.', '--json']);
  expect(ap.code, ap.stderr).toBe(0);
  expect(ap.json().outcome).toBe('not_blocked');
});
