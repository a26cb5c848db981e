import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { afterAll, describe, expect, it } from 'vitest';

const CHILD = join(import.meta.dirname, 'daemon-child.ts');
const dir = mkdtempSync(join(tmpdir(), 'mailagent-durability-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

async function startChild(): Promise<{ child: ChildProcess; http: string; smtpPort: number; liveKey: string | null }> {
  const child = spawn(process.execPath, ['--import', 'tsx', CHILD, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0]);
    });
    child.on('exit', (code) => reject(new Error(`daemon exited ${code}: ${err}`)));
  });
  const r = JSON.parse(line) as { http: string; smtp: string; liveKey: string | null };
  return { child, http: r.http, smtpPort: Number(r.smtp.split(':').pop()), liveKey: r.liveKey };
}

describe('durability: a 250 means the message is on disk', () => {
  it('finds every acknowledged message after a SIGKILL in the middle of many concurrent sessions', async () => {
    const first = await startChild();
    const liveKey = first.liveKey!;
    const acked = new Map<string, string>(); // rcv id → subject
    let failures = 0;
    let stop = false;
    const SESSIONS = 24;
    let n = 0;
    const session = async (s: number) => {
      // one connection per message, like most MTAs; TCP_NODELAY on (DESIGN.md: Known traps)
      while (!stop) {
        const subject = `durable ${s}-${n++}`;
        const tr = nodemailer.createTransport({ host: '127.0.0.1', port: first.smtpPort, secure: false, ignoreTLS: true, connectionTimeout: 5000, greetingTimeout: 5000, socketTimeout: 5000 });
        tr.on('token', () => {});
        try {
          const info = await tr.sendMail({ from: `s${s}@load.test`, to: 'agent@local.mailagent.localhost', subject, text: `body of ${subject}\n`.repeat(20) });
          const id = /rcv_[0-9a-z]+/.exec(info.response)?.[0];
          if (id) acked.set(id, subject);
        } catch {
          failures++;
          if (first.child.exitCode !== null || first.child.signalCode !== null) return;
        } finally {
          tr.close();
        }
      }
    };
    const loops = Array.from({ length: SESSIONS }, (_, i) => session(i));
    while (acked.size < 300) await new Promise((r) => setTimeout(r, 10));
    first.child.kill('SIGKILL');
    const killedAt = acked.size;
    await new Promise((r) => first.child.once('exit', r));
    stop = true;
    await Promise.all(loops);
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(failures).toBeGreaterThan(0); // sessions really were cut mid-flight
    expect(acked.size).toBeGreaterThanOrEqual(killedAt);

    const second = await startChild();
    try {
      const found = new Map<string, string>();
      let cursor: string | undefined;
      do {
        const url = `${second.http}/v1/messages/received?limit=100${cursor ? `&cursor=${cursor}` : ''}`;
        const page = await (await fetch(url, { headers: { authorization: `Bearer ${liveKey}` } })).json() as { data: { id: string; subject: string }[]; next_cursor?: string };
        for (const m of page.data) found.set(m.id, m.subject);
        cursor = page.next_cursor;
      } while (cursor);
      const missing = [...acked].filter(([id, subject]) => found.get(id) !== subject);
      expect(missing, `acknowledged but lost: ${missing.slice(0, 5).join(', ')}`).toEqual([]);
      // the restarted daemon takes mail again
      const tr = nodemailer.createTransport({ host: '127.0.0.1', port: second.smtpPort, secure: false, ignoreTLS: true });
      expect((await tr.sendMail({ from: 'after@load.test', to: 'agent@local.mailagent.localhost', subject: 'after', text: 'x' })).response).toMatch(/^250/);
    } finally {
      second.child.kill('SIGTERM');
      await new Promise((r) => second.child.once('exit', r));
    }
  }, 120_000);
});
