import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { createPipeline, type Pipeline } from '../../../src/server/pipeline/index.js';
import { ingestInbound } from '../../../src/services/inbound.js';
import { rawMessage } from '../selfhost/helpers.js';

// With the worker pool, a message whose From is its envelope sender is parsed and classified in
// one pool job, with the history read for that sender before the parse (services/inbound.ts
// prepareInbound, services/message-work.ts ClassifyAlong); any other From takes a second job with
// the From's history. Either way the stored classification is the one the inline path (parse, then
// history of the From, then classify) gives for the same mail in the same state.
let pooled: TestApp;
let inline: TestApp;
let pipeline: Pipeline;
beforeEach(async () => {
  pooled = await createTestApp();
  inline = await createTestApp();
  pipeline = createPipeline({ workers: 2, budgetMs: 30_000, log: pooled.ctx.log });
  await pipeline.ready();
  pooled.ctx.work = pipeline.work;
});
afterEach(async () => {
  await pipeline.close();
  await pooled.close();
  await inline.close();
});

async function deliver(t: TestApp, mailFrom: string, headerFrom: string, subject: string, body: string): Promise<Record<string, unknown>> {
  const to = t.boot.agent.email;
  const r = await ingestInbound(t.ctx, { raw: rawMessage({ to, from: headerFrom, subject, body, messageId: `${subject.replace(/\W/g, '')}@x.test` }), mailFrom, rcptTo: [to], source: 'local', remoteAddress: null, auth: null } as never);
  expect(r.accepted).toHaveLength(1);
  const row = await t.ctx.db.selectFrom('received_messages').select('classification').where('id', '=', r.accepted[0].messageId).executeTakeFirstOrThrow();
  return JSON.parse(row.classification as string) as Record<string, unknown>;
}

/** The same mail into both apps; the pool jobs the pooled one used. */
async function both(mailFrom: string, headerFrom: string, subject: string, body: string) {
  const before = pipeline.stats().jobs;
  const a = await deliver(pooled, mailFrom, headerFrom, subject, body);
  const jobs = pipeline.stats().jobs - before;
  const b = await deliver(inline, mailFrom, headerFrom, subject, body);
  return { pooled: a, inline: b, jobs };
}

describe('classification along with the parse (one pool job)', () => {
  it('From = MAIL FROM: one job, and the same classification as parsing and classifying apart', async () => {
    // History first: earlier mail from this sender changes its reputation.
    for (let i = 0; i < 3; i++) await both('carol@partner.test', 'Carol <carol@partner.test>', `earlier ${i}`, 'Quick note about the plan.');
    const r = await both('carol@partner.test', 'Carol <carol@partner.test>', 'code', 'Your verification code is 482913. Please confirm the transfer today.');
    expect(r.jobs).toBe(1);
    expect(r.pooled).toEqual(r.inline);
    expect(r.pooled.intent).toBe('verification_code');
  });

  it('a From other than MAIL FROM: a second job, classified with the From\'s history (not the envelope sender\'s)', async () => {
    for (let i = 0; i < 3; i++) await both('dave@partner.test', 'Dave <dave@partner.test>', `earlier ${i}`, 'Quick note about the plan.');
    // The envelope sender has no history; the From has three messages.
    const r = await both('bounces+123@esp.test', 'Dave <dave@partner.test>', 'newsletter', 'Please wire the payment to the new account today, urgent.');
    expect(r.jobs).toBe(2);
    expect(r.pooled).toEqual(r.inline);
    const fresh = await both('nobody@esp.test', 'Nobody <nobody@esp.test>', 'same text', 'Please wire the payment to the new account today, urgent.');
    // The history made a difference (else the test would not show which one was used).
    expect(fresh.pooled.sender_reputation).not.toEqual(r.pooled.sender_reputation);
  });
});
