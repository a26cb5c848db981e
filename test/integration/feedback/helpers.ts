import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../../helpers/daemon.js';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { TestRelay } from '../../helpers/relay.js';
import { closeRelay } from '../../../src/services/outbound-delivery.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { startSmtp } from '../inbound/helpers.js';

/**
 * A report fixture with the message it is about filled in. Fixtures are real-world shaped reports
 * (Postfix, Gmail, qmail, Yahoo ARF) with `{{AGENT}}` (the original's From; an ARF report's
 * addressee, the feedback-loop address), `{{RETURN_PATH}}` (the original's envelope sender, where
 * a bounce goes; the agent's address when not given, as mail before signed return paths had it),
 * `{{RECIPIENT}}` and `{{MESSAGE_ID}}`, because the values of a send are only known at run time.
 */
export function fixture(name: string, v: { agent: string; recipient: string; messageId: string; returnPath?: string }): Buffer {
  const text = readFileSync(join(ROOT, 'test', 'fixtures', name), 'utf8')
    .replaceAll('{{AGENT}}', v.agent).replaceAll('{{RETURN_PATH}}', v.returnPath ?? v.agent)
    .replaceAll('{{RECIPIENT}}', v.recipient).replaceAll('{{MESSAGE_ID}}', v.messageId);
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'));
}

/** The RFC Message-ID our send carried (what a report quotes back). */
export async function rfcIdOf(t: TestApp, messageId: string): Promise<string> {
  const row = await t.ctx.db.selectFrom('sent_messages').select('rfc_message_id').where('id', '=', messageId).executeTakeFirstOrThrow();
  return row.rfc_message_id;
}

export async function eventsOfType(t: TestApp, type: string, key?: string) {
  const r = await t.req('GET', '/v1/events', { query: { event_type: type, limit: 100 }, ...(key ? { key } : {}) });
  if (r.status !== 200) throw new Error(r.text);
  return r.body.data as { id: string; type: string; source_message_id: string | null; thread_id: string | null; agent_id: string | null; test_mode: boolean; data: Record<string, any> }[];
}

/** An app that sends live mail through a real SMTP relay and takes reports over real SMTP. */
export interface RelayedApp { t: TestApp; relay: TestRelay; smtp: SmtpListener }

export async function startRelayedApp(): Promise<RelayedApp> {
  const relay = await TestRelay.start();
  const t = await createTestApp({ relay: relay.url });
  return { t, relay, smtp: await startSmtp(t) };
}

export async function stopRelayedApp(a: RelayedApp): Promise<void> {
  await a.smtp.stop();
  closeRelay(a.t.ctx);
  await a.t.close();
  await a.relay.stop();
}
