import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../helpers/app.js';
import { fakeResolver, startSmtp, transport } from './helpers.js';
import type { SmtpListener } from '../../../src/server/smtp/listener.js';
import { DAY, MINUTE } from '../../../src/shared/clock.js';

/**
 * docs/inbound.md → Plus addresses → Shares: a stranger's unauthenticated mail cannot use up the
 * workspace's new plus addresses (Free 20 a day) for the senders the agent signed up with.
 * Real SMTP over TCP, no trusted network, an offline DNS that publishes SPF for shop.example only.
 */
let t: TestApp;
let smtp: SmtpListener;
const D = 'local.mailagent.localhost';
const dns = fakeResolver({ 'TXT shop.example': [['v=spf1 ip4:127.0.0.1 -all']] });

beforeAll(async () => {
  t = await createTestApp();
  // queue off: the 250 is sent after the message is stored, so it says when mail was held.
  smtp = await startSmtp(t, { queue: undefined, trustedNetworks: [], resolver: dns.resolver });
});
afterAll(async () => {
  await smtp.stop();
  await t.close();
});

async function send(from: string, to: string): Promise<string> {
  const tr = transport(smtp.port);
  try {
    const info = await tr.sendMail({ from, to, envelope: { from, to }, subject: 'hello', text: 'a message' });
    return String(info.response);
  } finally {
    tr.close();
  }
}

const overLimit = async (to: string) => (await t.ctx.db.selectFrom('received_messages').select('over_limit')
  .where('recipient', '=', to).orderBy('id', 'desc').executeTakeFirstOrThrow()).over_limit;

describe('plus-address shares for unauthenticated mail', () => {
  it('a stranger burning 20 plus addresses gets 5; a signed-up sender still reaches a new plus address', async () => {
    const replies: string[] = [];
    for (let i = 0; i < 20; i++) replies.push(await send('eve@attacker.example', `agent+burn${i}@${D}`));
    // Free: a quarter of 20 for one unauthenticated From domain
    expect(replies.slice(0, 5).every((r) => /stored as rcv_/.test(r) && !/held/.test(r))).toBe(true);
    expect(replies[5]).toMatch(/held, not delivered \(plus_address_limit: unauthenticated mail from attacker\.example has reached its share of 5 new plus addresses/);
    for (let i = 5; i < 20; i++) expect(await overLimit(`agent+burn${i}@${D}`)).toBe('plus_address_limit');
    // an address eve opened keeps receiving
    expect(await send('eve@attacker.example', `agent+burn1@${D}`)).not.toMatch(/held/);

    // the shop's mail (SPF pass aligned with its From) is delivered to a new plus address
    const shop = await send('noreply@shop.example', `agent+shop@${D}`);
    expect(shop).toMatch(/stored as rcv_/);
    expect(shop).not.toMatch(/held/);
    expect(await overLimit(`agent+shop@${D}`)).toBeNull();
  });

  it('unauthenticated mail together opens at most half the limit; authenticated mail has the rest, then the spec limit holds', async () => {
    t.clock.advance(DAY + MINUTE);
    // 4 forged From domains x 5 = 20 tries: 10 admitted (half of Free 20), the rest held
    let held = 0;
    for (let d = 0; d < 4; d++) {
      for (let i = 0; i < 5; i++) {
        const r = await send(`x@rot${d}.example`, `agent+rot${d}x${i}@${D}`);
        if (/held/.test(r)) {
          held++;
          expect(r).toMatch(/unauthenticated mail has reached its share of 10 of the workspace's new plus addresses/);
        }
      }
    }
    expect(held).toBe(10);
    // authenticated mail still has 10 new plus addresses; the 11th is past the spec's limit of 20
    for (let i = 0; i < 10; i++) expect(await send('noreply@shop.example', `agent+order${i}@${D}`)).not.toMatch(/held/);
    const past = await send('noreply@shop.example', `agent+order10@${D}`);
    expect(past).toMatch(/held, not delivered \(plus_address_limit: the workspace's distinct plus addresses for the last 24 hours are used up/);
  });
});
