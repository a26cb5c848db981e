// Classifier 2.13 (issue #12, session 12): the cold screen's pretext check — a pitch dressed as a
// reply, an invoice or an order notice in a message that starts no thread — and the stranger's
// opening and ask in the languages of the style set. The texts here are written for this test, not
// taken from the style set or its fresh check.
import { describe, expect, it } from 'vitest';
import { screenOutbound, reviewAppeal, CLASSIFIER_MODEL } from '../../../src/classifier/index.js';
import { SCREEN_OPTIONS } from '../../../src/classifier/outbound.js';
import { foldKey } from '../../../scripts/lib-classifier/fold-cache.js';
import { RECIPES, SHIPPED_RECIPE } from '../../../scripts/lib-classifier/recipe-v2.js';
import { sinceAtMost, isFreshCheck13, type ColdStyleRecord } from '../../../scripts/lib-classifier/corpora.js';

const send = (subject: string, text: string, isReply = false) => screenOutbound({ subject, text, to: ['someone@example.com'], isReply });
// (the screen of 2.12: 2.14's rules, which read more wordings, off as well)
const without213 = <T>(f: () => T): T => {
  SCREEN_OPTIONS.rules213 = false;
  SCREEN_OPTIONS.rules214 = false;
  try {
    return f();
  } finally {
    SCREEN_OPTIONS.rules213 = true;
    SCREEN_OPTIONS.rules214 = true;
  }
};

const CALL_PITCH = 'Hi Maya,\n\nFollowing up on our call. We help dental clinics fill empty chairs, and our clients typically see 40 new patients a month. Do you have 15 minutes on Friday for a quick demo?\n\nBest,\nTom';
const INVOICE_PITCH = 'Hi Maya,\n\nWe are an accounts-payable agency and we help companies stop paying duplicate invoices; our clients typically save 3% of spend. Would you be open to a short call next week?\n\nBest,\nTom';
const SHIPPED_PITCH = 'Hi Maya,\n\nYour order has shipped and the tracking number is 1Z55K0. While you wait: companies like yours cut returns by a third with our packaging sensors. Book a 20-minute demo this week?\n\nBest,\nTom';

describe('cold screen: pretexts (2.13)', () => {
  it('a "Re:" subject and a claimed call lend a first message no transactional credit when the body is a stranger\'s pitch', () => {
    const r = send('Re: our call', CALL_PITCH);
    expect(r.signals).toContain('pretext');
    expect(r.blocked).toBe(true);
    expect(without213(() => send('Re: our call', CALL_PITCH).signals)).not.toContain('pretext');
  });
  it('a pretext never makes a refusal fixed-policy; the appeal reads the claimed conversation as stated', () => {
    const input = { subject: 'Re: our call', text: CALL_PITCH, to: ['someone@example.com'], isReply: false };
    expect(screenOutbound(input).appealable).toBe(true);
    const a = reviewAppeal(input);
    expect(['overturned', 'upheld']).toContain(a.outcome);
    expect(a.message).toMatch(/transactional evidence|Upheld/);
  });
  it('an invoice number only in the subject does not outweigh a pitch in the body', () => {
    const r = send('Invoice #8812', INVOICE_PITCH);
    expect(r.signals).toContain('pretext');
    expect(r.blocked).toBe(true);
  });
  it('a shipping notice that then pitches a demo is a pretext', () => {
    const r = send('Your order has shipped', SHIPPED_PITCH);
    expect(r.signals).toContain('pretext');
    expect(r.blocked).toBe(true);
  });
  it('in a real thread (isReply from the threading data) there is no pretext', () => {
    expect(send('Re: our call', CALL_PITCH, true).signals).not.toContain('pretext');
  });
  it('the genuine mail those dress up as passes: an invoice, a shipping notice, a follow-up of a real meeting', () => {
    const invoice = send('Invoice #8812', 'Hi Maya,\n\nPlease find attached invoice #8812 for the March maintenance visit, 420 EUR, due in 30 days. Let me know if you need a purchase order number on it.\n\nThanks,\nTom');
    expect(invoice.blocked).toBe(false);
    expect(invoice.signals).not.toContain('pretext');
    const shipped = send('Your order has shipped', 'Hi Maya,\n\nYour order #5512 (two monitor arms) has shipped and arrives on Tuesday. Tracking number 1Z55K0. If the mounting is unclear, reply to this email and we will help.\n\nThanks,\nTom');
    expect(shipped.blocked).toBe(false);
    const followup = send('Following up on our meeting', 'Hi Maya,\n\nThanks for meeting us on Monday. As discussed, the revised quote with the second training day is attached. Shall we have a short call on Thursday to confirm the start date?\n\nBest,\nTom');
    expect(followup.signals).not.toContain('pretext');
    expect(followup.blocked).toBe(false);
  });
});

describe('cold screen: other languages (2.13)', () => {
  it('reads a stranger\'s conventional opening and ask', () => {
    expect(send('ご提案', '山田様\n\n突然のご連絡失礼いたします。弊社は物流倉庫向けの在庫管理システムを提供しております。ご興味がございましたら、オンラインでご説明いたします。\n\n佐藤').signals).toContain('cold_intl');
    expect(send('Angebot', 'Guten Tag Frau Weber,\n\nwir sind eine Agentur für Online-Shops. Gern sende ich Ihnen ein unverbindliches Angebot für die Überarbeitung Ihres Shops.\n\nViele Grüße\nTom Berger').signals).toContain('cold_intl');
    expect(send('Una propuesta', 'Hola Lucía,\n\nTrabajamos con tiendas online de cosmética. ¿Tendría 15 minutos el martes para una llamada?\n\nSaludos,\nTomás').signals).toContain('meeting_ask');
    expect(without213(() => send('Angebot', 'Guten Tag Frau Weber,\n\nGern sende ich Ihnen ein unverbindliches Angebot.\n\nTom').signals)).not.toContain('cold_intl');
  });
  it('transactional mail in those languages stays allowed', () => {
    expect(send('Rechnung Nr. 2231', 'Guten Tag Frau Weber,\n\nanbei erhalten Sie die Rechnung Nr. 2231 über 180,00 EUR für die Wartung im April. Zahlbar innerhalb von 14 Tagen.\n\nTom Berger').blocked).toBe(false);
    expect(send('発送のお知らせ', '山田様\n\nご注文の商品を本日発送いたしました。お問い合わせ番号は1188-2231です。\n\n佐藤').blocked).toBe(false);
    expect(send('Confirmación de la reunión', 'Hola Lucía,\n\nte confirmo la reunión del jueves a las 10 en nuestra oficina. Trae el contrato firmado, por favor.\n\nTomás').blocked).toBe(false);
  });
});

describe('the 2.13 version and the style set', () => {
  it('ships since 2.13: the injection recipe of 2.12 (the same fold models), a new cold model and screen rules (2.14: again)', () => {
    expect(['2.13', '2.14']).toContain(SHIPPED_RECIPE.name);
    expect(foldKey(RECIPES['2.13'])).toBe(foldKey(RECIPES['2.12']));
    expect(CLASSIFIER_MODEL).toMatch(/^mailagent-clf-2\.1[34]\+[0-9a-f]{8}$/);
  });
  it('compares style versions part by part, and keeps 2.13\'s fresh check out of training', () => {
    expect(sinceAtMost('2.13', '2.6')).toBe(false);
    expect(sinceAtMost('2.6', '2.13')).toBe(true);
    expect(sinceAtMost(undefined, '2.2')).toBe(true);
    expect(sinceAtMost('2.13', '2.2')).toBe(false);
    const rec = (since: string, check?: true): ColdStyleRecord => ({ id: 'x', group: 'g', style: 's', label: 1, kind: 'cold_pitch', lang: 'en', subject: '', text: '', isReply: false, to: 1, since, ...(check ? { check } : {}) });
    expect(isFreshCheck13(rec('2.13', true))).toBe(true);
    expect(isFreshCheck13(rec('2.6', true))).toBe(false);
    expect(isFreshCheck13(rec('2.13'))).toBe(false);
  });
});
