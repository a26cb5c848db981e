// Classifier 2.14 (issue #12, session 13): the cold screen — a claimed thank-you over a commercial
// offer ("Thank you for your interest …" with nothing the recipient did named) is a pretext; a
// stranger's introduction, catalogue offer, recruiter and closing offer in more languages; and the
// transactional mail that looks like them (a real thank-you to an applicant, a payment receipt,
// interview invitations and follow-ups in those languages). The texts here are written for this
// test, not taken from the style set or its fresh checks.
import { describe, expect, it } from 'vitest';
import { screenOutbound, reviewAppeal, CLASSIFIER_MODEL } from '../../../src/classifier/index.js';
import { SCREEN_OPTIONS } from '../../../src/classifier/outbound.js';
import { foldKey } from '../../../scripts/lib-classifier/fold-cache.js';
import { RECIPES, SHIPPED_RECIPE } from '../../../scripts/lib-classifier/recipe-v2.js';
import { isFreshCheck13, isFreshCheck14, checkTrains, type ColdStyleRecord } from '../../../scripts/lib-classifier/corpora.js';

const send = (subject: string, text: string, isReply = false) => screenOutbound({ subject, text, to: ['someone@example.com'], isReply });
const without214 = <T>(f: () => T): T => {
  SCREEN_OPTIONS.rules214 = false;
  try {
    return f();
  } finally {
    SCREEN_OPTIONS.rules214 = true;
  }
};

const THANKS_PITCH = 'Hi Maya,\n\nThank you for your interest! This week only, new members of our sales coaching club get 50% off the first quarter and a free one-to-one session. Reply YES and I will send your sign-up link.\n\nBest,\nTom';
const THANKS_PITCH_PL = 'Dzień dobry,\n\ndziękujemy za zainteresowanie naszymi usługami. Dla nowych klientów mamy 30% rabatu na pierwszy miesiąc sprzątania biura i darmową wycenę. Czy mogę zadzwonić w czwartek?\n\nTomasz';

describe('cold screen: claimed thank-yous (2.14)', () => {
  it('"Thank you for your interest" over a discount, with nothing the recipient did named, is a pretext and refused', () => {
    const r = send('Payment confirmation', THANKS_PITCH);
    expect(r.signals).toContain('pretext');
    expect(r.blocked).toBe(true);
    expect(r.appealable).toBe(true);
    expect(without214(() => send('Payment confirmation', THANKS_PITCH).signals)).not.toContain('pretext');
  });
  it('the same in Polish, under an order subject', () => {
    const r = send('Zamówienie nr 5520', THANKS_PITCH_PL);
    expect(r.signals).toContain('pretext');
    expect(r.blocked).toBe(true);
  });
  it('the appeal reads the claimed thank-you without the pretext check', () => {
    const a = reviewAppeal({ subject: 'Payment confirmation', text: THANKS_PITCH, to: ['someone@example.com'], isReply: false });
    expect(['overturned', 'upheld']).toContain(a.outcome);
  });
  it('a real thank-you passes: an applicant, a payment, a brochure that was requested', () => {
    const applicant = send('Thank you for your interest', 'Hi Maya,\n\nThank you for your interest in the office manager role. We have received your application and will reply within two weeks about an interview.\n\nRegards,\nTom');
    expect(applicant.signals).not.toContain('pretext');
    expect(applicant.blocked).toBe(false);
    const payment = send('Payment confirmation', 'Hi Maya,\n\nThank you for your payment of 320.00 EUR for invoice 2025-118. Your receipt is attached; nothing else is needed from you.\n\nRegards,\nTom');
    expect(payment.blocked).toBe(false);
    const brochure = send('Your brochure', 'Hi Maya,\n\nThank you for your interest in our garden rooms. The brochure you requested is attached, with the free delivery areas on page 4.\n\nRegards,\nTom');
    expect(brochure.signals).not.toContain('pretext');
    expect(brochure.blocked).toBe(false);
  });
});

describe('cold screen: more languages (2.14)', () => {
  it('reads a stranger\'s introduction, a catalogue offer and a recruiter in languages 2.13 had no rule for', () => {
    const greek = 'Καλημέρα,\n\nείμαστε εταιρεία που παράγει συσκευασίες για τρόφιμα. Θα θέλατε να σας στείλουμε τον τιμοκατάλογό μας;\n\nΓιώργος';
    expect(send('Συσκευασίες', greek).signals).toContain('cold_intl');
    expect(without214(() => send('Συσκευασίες', greek).signals)).not.toContain('cold_intl');
    expect(send('Nabídka', 'Dobrý den,\n\nvšiml jsem si, že vaše restaurace nemá online rezervace. Rádi bychom vám představili náš systém.\n\nPetr').signals).toContain('cold_intl');
    expect(send('Fırsat', 'Merhaba,\n\nben bir headhunter olarak çalışıyorum; müşterimiz olan bir yazılım şirketi Ankara için ekip lideri arıyor. Konuşmak ister misiniz?\n\nAyşe').signals).toContain('cold_intl');
    expect(send('Câu hỏi', 'Chào anh,\n\nai là người phụ trách mua sắm thiết bị văn phòng bên mình ạ? Bên em muốn gửi báo giá.\n\nHoa').signals).toContain('meeting_ask');
  });
  it('limited places and "shall I reserve you a place" read as an invitation', () => {
    const r = send('Pozvánka', 'Dobrý den,\n\nzveme vás na seminář o energetických úsporách 3. června v Brně. Počet míst je omezen. Mám vám rezervovat místo?\n\nPetr');
    expect(r.signals).toContain('invitation');
  });
  it('transactional mail in those languages passes: an interview invitation, a follow-up of a real meeting, an order', () => {
    expect(send('Mülakat daveti', 'Merhaba Ayşe,\n\nyazılım geliştirici pozisyonuna yaptığınız başvuru için teşekkür ederiz. Sizi salı günü saat 11:00’de görüşmeye davet etmek istiyoruz. Uygun musunuz?\n\nMehmet').blocked).toBe(false);
    expect(send('בהמשך לשיחה', 'שלום רונית,\n\nתודה על הפגישה אתמול. כפי שסיכמנו, מצורף לוח הזמנים לפרויקט. נדבר ביום שני?\n\nאבי').blocked).toBe(false);
    expect(send('Επιβεβαίωση παραγγελίας 7781', 'Αγαπητή Μαρία,\n\nευχαριστούμε για την παραγγελία σας. Η παραγγελία 7781 θα αποσταλεί την Τρίτη.\n\nΓιώργος').blocked).toBe(false);
  });
});

describe('the 2.14 version and the style set', () => {
  it('ships 2.14: the injection recipe of 2.12 (the same fold models), a new cold model and screen rules', () => {
    expect(SHIPPED_RECIPE.name).toBe('2.14');
    expect(foldKey(RECIPES['2.14'])).toBe(foldKey(RECIPES['2.12']));
    expect(CLASSIFIER_MODEL).toMatch(/^mailagent-clf-2\.14\+[0-9a-f]{8}$/);
  });
  it('keeps 2.14\'s fresh check out of every training set; 2.13\'s trains from 2.14 on', () => {
    const rec = (since: string, check?: true): ColdStyleRecord => ({ id: 'x', group: 'g', style: 's', label: 1, kind: 'cold_pitch', lang: 'en', subject: '', text: '', isReply: false, to: 1, since, ...(check ? { check } : {}) });
    expect(isFreshCheck14(rec('2.14', true))).toBe(true);
    expect(isFreshCheck14(rec('2.13', true))).toBe(false);
    expect(isFreshCheck13(rec('2.14', true))).toBe(false);
    expect(checkTrains(rec('2.14', true), '2.14')).toBe(false);
    expect(checkTrains(rec('2.13', true), '2.13')).toBe(false);
    expect(checkTrains(rec('2.13', true), '2.14')).toBe(true);
    expect(checkTrains(rec('2.6', true), '2.6')).toBe(true);
    expect(checkTrains(rec('2.14'), '2.14')).toBe(true);
  });
});
