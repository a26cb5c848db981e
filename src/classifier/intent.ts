// Intent: rules over subject, fresh body text (quoted history removed),
// headers and sender, combined with the learned `request`, `spam` and `cold`
// models. The highest-scoring intent wins; below INTENT_THRESHOLD the answer
// is `unclassified`.
import { featurize, MAX_FEATURES, predict } from './features.js';
import { getModel, type ModelName } from './model.js';
import type { Entities } from './entities.js';

export const INTENTS = [
  'question',
  'request',
  'meeting_request',
  'schedule_change',
  'support',
  'complaint',
  'sales_inquiry',
  'cold_pitch',
  'newsletter',
  'notification',
  'receipt',
  'verification_code',
  'out_of_office',
  'auto_reply',
  'bounce',
  'unsubscribe',
  'decline',
  'thanks',
  'unclassified',
] as const;
export type Intent = (typeof INTENTS)[number];

/** Below this confidence the intent is `unclassified`. */
export const INTENT_THRESHOLD = 0.5;

const buf = new Uint32Array(MAX_FEATURES);

/** Probability from a learned model over the first `maxChars` of `lower`. */
export function modelProb(name: ModelName, lower: string, maxChars: number): number {
  const m = getModel(name);
  if (!m) return 0;
  const n = featurize(lower, 0, Math.min(lower.length, maxChars), buf, 0);
  return predict(m, buf, n);
}

/** Several models over one feature pass of the first `maxChars` of `lower`. */
export function modelProbs(names: readonly ModelName[], lower: string, maxChars: number): number[] {
  const n = featurize(lower, 0, Math.min(lower.length, maxChars), buf, 0);
  return names.map((name) => {
    const m = getModel(name);
    return m ? predict(m, buf, n) : 0;
  });
}

/** Max request probability over the first sentences of the fresh text. */
export function requestProb(lower: string): number {
  const m = getModel('request');
  if (!m) return 0;
  let best = 0;
  const sentences = lower.slice(0, 3000).split(/(?<=[.!?])\s+|\n+/, 40);
  for (const s of sentences) {
    if (s.length < 8) continue;
    const n = featurize(s, 0, s.length, buf, 0);
    const p = predict(m, buf, n);
    if (p > best) best = p;
  }
  return best;
}

export interface IntentSignals {
  subject: string; // lower-cased
  body: string; // lower-cased fresh text
  from: string; // lower-cased address
  headers: Record<string, string>;
  entities: Entities;
  spam: number;
  cold: number;
  request: number;
  knownSender: boolean; // we wrote to them or they replied before
}

const R = {
  bounceFrom: /^(mailer-daemon|postmaster|mail-daemon|bounce[s]?)(@|$|[+-])/,
  bounceSubj: /(undeliver|delivery status notification|returned mail|delivery (has )?fail|failure notice|mail delivery (failed|subsystem)|could not be delivered|non[- ]?delivery|unzustellbar|non remis|no se pudo entregar)/,
  bounceBody: /(could not be delivered|delivery to the following recipients? failed|address (was )?not found|user unknown|mailbox (unavailable|not found|full)|550[ -]5\.\d\.\d|recipient address rejected)/,
  oooSubj: /(out of (the )?office|automatic reply|auto(matic)?[- ]?(reply|response)|abwesenheit|absence|fuera de la oficina|réponse automatique|on (vacation|holiday|leave))/,
  oooBody: /\b((i am|i'm|i will be|i'll be) (currently )?(out of (the )?office|away from (the office|my desk|email)|on (vacation|holiday|leave|annual leave|parental leave|maternity leave|paternity leave|a business trip))|limited access to (my )?e-?mail|(i will|i'll) (be )?(back|return) (on|in the office)|returning on|ich bin (bis|vom)|je suis absent|estoy fuera)/,
  autoBody: /\b(this is an automated (response|message|reply|email)|we (have )?received your (message|request|email|inquiry|ticket)|(your )?(ticket|case|request) (#|number|no\.?)?\s*\S+ (has been|was) (created|received|opened|logged)|thank you for contacting|we will get back to you (shortly|within|as soon)|auto-?generated (message|email))/,
  // "Your Amazon OTP is …", "Use 123-456 to sign in to Slack", "G-123456 is your Google verification code"
  codeWords: /\b(verification|confirmation|security|login|log-in|sign[- ]?in|one[- ]time|2fa|mfa|two[- ](factor|step)|otp|passcode|authentication|access|temporary) (code|pin|password|passcode)\b|\b(otp|passcode|one[- ]time (password|passcode|pin)|2fa|mfa)\b|\byour\b[^.\n]{0,30}\b(code|pin|otp|passcode)\b\s*(is|:)|\bis your\b[^.\n]{0,40}\b(code|otp|pin|passcode)\b|\b(use|enter) (this |the following |the )?code\b|\b(use|enter)\b[^.\n]{0,30}\bto (sign|log) ?in\b|\benter\b[^.\n]{0,30}\b(code|sign[- ]?in|log[- ]?in)\b|c[oó]digo|codice di (verifica|accesso)|verificatiecode|inlogcode|bestätigungscode|sicherheitscode|anmeldecode|einmalpasswort|code de (vérification|confirmation|connexion|sécurité)|kod weryfikacyjny|verifieringskod|код (подтверждения|для входа)|認証コード|確認コード|验证码|校验码/,
  receipt: /\b(receipt|order confirm(ation|ed)|thank(s| you) for (your )?(order|purchase|payment)|payment (received|confirmation|successful|processed)|your (order|purchase) (has been|is) (confirmed|placed|received)|amount (paid|charged)|subtotal|total (paid|charged|amount)|has been charged|was charged|invoice (paid|#|no)|transaction (id|details)|rechnung|quittung|reçu|recibo|factura|bestellbestätigung)\b/,
  shipping: /\b(has (been )?shipped|out for delivery|has been delivered|on its way|tracking number|track your (package|order|shipment)|estimated delivery|versandt|expédiée|enviado)\b/,
  noReplyFrom: /^(no-?reply|do-?not-?reply|notifications?|alerts?|notify|updates?|mailer|system|automated|news|info|hello|team|support|billing|accounts?)[@+.-]/,
  notifBody: /\b(security alert|new sign-?in|sign-?in attempt|password (was |has been )?(changed|reset|updated)|reset your password|your (account|subscription|plan|trial) (has|was|is|will)|has been (updated|changed|created|deleted|approved|assigned|merged|published)|you have (a )?new (message|comment|follower|notification|mention)|mentioned you|commented on|assigned to you|reminder:|do not reply to this (email|message)|this is an automated (notification|message)|you('re| are) receiving this (email|notification) because)\b/,
  newsletter: /\b(newsletter|digest|weekly (update|roundup|recap)|this week in|in this (issue|edition)|view (this email )?in (your )?browser|read (more|online)|edition|issue #?\d+)\b/,
  unsubFooter: /\b(unsubscribe|opt[- ]out|manage (your )?(email )?preferences|update your preferences)\b/,
  coldPhrases: /\b(i came across|quick question|hop on a (quick )?call|15[- ]minute|quick (call|chat)|book a demo|we help (\w+ )?(companies|teams|businesses|brands|startups|founders)|worth a (quick )?(chat|call)|at a fraction of the cost|if you have any requirements|free (audit|demo|trial|consultation)|would you be open to|are you the right person|partnership opportunity|i('d| would) love to (show|connect|chat)|just (bumping|following up on my)|circling back|reaching out (because|to introduce))\b/,
  meetingNoun: /\b(meet|meeting|call|chat|catch up|catch-up|sync|coffee|lunch|dinner|zoom|teams|google meet|calendar|invite|appointment|interview|demo|session|1:1|one-on-one)\b/,
  meetingAsk: /\b(are you (free|available)|would you be (free|available)|(does|would) .{0,40} work for you|can we (meet|schedule|set up|hop|jump|talk|find|grab|do)|could we (meet|schedule|set up|talk|find)|let'?s (meet|schedule|set up|find a time|grab|catch up|sync)|schedule (a|an|some) (time|call|meeting|chat)|book (a )?(time|slot|call)|when (are|would) you (be )?(free|available)|find a time|your availability|what time works|send (me|over) (an? )?invite|set up (a|an) (call|meeting|time)|(meet|talk|chat) (next|this) (week|monday|tuesday|wednesday|thursday|friday)|free (for|to) (a )?(call|chat|coffee|lunch)|hätten sie zeit|disponible pour|disponible para)/,
  schedChange: /\b((has been|was|is|been) (moved|rescheduled|postponed|pushed( back)?|cancell?ed) (to|until|from|by)|reschedul\w*|postpone|push (it|the meeting|our (call|meeting)|back)|move (our|the|tomorrow's|today's) (meeting|call|appointment|session|interview)|can we (move|shift|change) (it|the time|our)|running (late|behind)|need to cancel (our|the|my|tomorrow's|today's) (meeting|call|appointment)|cancel (our|the|tomorrow's|today's) (meeting|call|appointment)|new time|change of (plans|time)|(meeting|call) (is|has been) (moved|cancelled|canceled|rescheduled)|verschieben|reporter (le|notre)|reprogramar|aplazar)\b/,
  complaint: /\b(unacceptable|disappointed|disappointing|frustrat\w+|terrible|awful|worst|ridiculous|complain\w*|furious|angry|outrage\w*|still (haven't|have not|not|no) (received|heard|been|got)|never (received|arrived|got)|waste of|poor (service|quality)|demand (a|my) refund|want (a|my) (refund|money back)|(second|third|fourth) time|not happy|very unhappy|fed up|escalat\w+|lawyer|chargeback)\b/,
  support: /\b(not working|doesn'?t work|does not work|isn'?t working|stopped working|broken|error|bug|crash\w*|can'?t (log|sign|access|login|find|open|connect)|cannot (log|sign|access|login|find|open|connect)|unable to|issue with|problem with|trouble with|having (an )?(issue|problem|trouble)|help (me )?with|how do i|how can i|troubleshoot\w*|locked out|reset my password|keeps (failing|crashing))\b/,
  sales: /\b(pricing|price list|prices|quote|quotation|how much (does|do|is|would|will)|interested in (buying|purchasing|your (product|service|plan|solution|software|offering))|enterprise (plan|license|pricing)|volume discount|request a demo|see a demo|(free )?trial|purchase|buy \d+|licen[cs]es? for|do you (offer|sell|ship|support)|cost of|rfp|request for proposal)\b/,
  decline: /\b(not interested|no thanks|no, thank you|we'?ll pass|i'?ll pass|(have )?decided (to go|not to)|go(ing)? (with|in) (another|a different)|unfortunately,? (we|i) (won'?t|will not|can'?t|cannot|are unable|have decided|must decline)|not a (good )?fit|not at this time|(must|have to|will have to) decline|declin(e|ing) (the|your|this)|kein interesse|pas intéressé|no (me |nos )?interesa)\b/,
  unsub: /\b(unsubscribe|remove me|take me off|stop (emailing|sending|contacting|messaging)|opt(-| )?out|don'?t (email|contact|message) me|no more emails|remove my (email|address)|abmelden|désabonner|darse de baja)\b/,
  thanks: /\b(thank you|thanks|thx|much appreciated|appreciate (it|that|your help)|merci|danke|gracias|obrigad[oa]|grazie|bedankt)\b/,
  requestRule: /\b(please|pls|could you|can you|would you|kindly|i need you to|let me know|send (me|over|us)|make sure|remember to|bitte|s'il (te|vous) pla[iî]t|por favor|per favore)\b/,
  questionStart: /(^|[\n.!?,]\s*)(who|what|when|where|why|how|which|is|are|do|does|did|can|could|would|will|should|have|has|warum|wann|wie|was|wo|pourquoi|quand|comment|est-ce|qué|cuándo|cómo|por qué|dónde)\b[^?\n]{0,200}\?/,
  modalAsk: /\b(could|can|would|will) you (please |kindly )?(send|share|add|check|review|forward|sign|confirm|update|look|fill|provide|help|make|give|get|call|prepare|take|set up|resend|approve|remove|change|cancel|book)\b/,
};

/** Words of two or more letters/digits (any script); CJK text counts one word per two characters. */
export function wordCount(s: string): number {
  let n = 0;
  let run = 0;
  let cjk = 0;
  const end = Math.min(s.length, 2000);
  for (let i = 0; i <= end; i++) {
    const c = i < end ? s.charCodeAt(i) : 32;
    if (c >= 0x3040 && c <= 0x9fff) cjk++;
    const word = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 39 || (c >= 0xc0 && c < 0x3040) || c > 0x9fff;
    if (word) run++;
    else {
      if (run >= 2) n++;
      run = 0;
    }
  }
  return n + (cjk >> 1);
}

function countQ(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) === 63) n++;
  return n;
}

export function classifyIntent(sig: IntentSignals): { intent: Intent; confidence: number; scores: Partial<Record<Intent, number>> } {
  const s = sig.subject.slice(0, 500);
  // intent lives at the top of a message; bounded for speed
  const b = sig.body.length > 4000 ? sig.body.slice(0, 4000) : sig.body;
  const sb = s + '\n' + b;
  const h = sig.headers;
  const scores: Partial<Record<Intent, number>> = {};
  const set = (k: Intent, v: number) => {
    if ((scores[k] ?? 0) < v) scores[k] = v;
  };
  const autoSubmitted = (h['auto-submitted'] ?? 'no').toLowerCase() !== 'no' || /auto.?reply|auto_reply/i.test(h['x-autoreply'] ?? h['x-autorespond'] ?? h['precedence'] ?? '');
  // List-Id and Precedence name a list. List-Unsubscribe alone does not: RFC 8058 one-click is on
  // much one-to-one mail (every live send of mailagent carries it), so it counts only with a
  // list's wording, a newsletter's words or an unsubscribe footer in a long body.
  const listMail = !!h['list-id'] || /^(bulk|list)$/i.test(h['precedence'] ?? '')
    || (!!h['list-unsubscribe'] && (R.newsletter.test(sb) || (R.unsubFooter.test(b) && b.length >= 600)));
  const ct = (h['content-type'] ?? '').toLowerCase();
  const shortBody = b.length < 600;
  // The learned models cannot read intent into a few words ("hello" scored
  // 0.997 spam and 0.95 cold): model-driven intents need some content.
  const bodyWords = wordCount(b);
  const substantive = bodyWords >= 8;

  // delivery failures
  if (ct.includes('report-type=delivery-status') || ct.includes('multipart/report')) set('bounce', 0.97);
  if (R.bounceFrom.test(sig.from)) set('bounce', R.bounceSubj.test(s) || R.bounceBody.test(b) ? 0.97 : 0.8);
  else if (R.bounceSubj.test(s)) set('bounce', R.bounceBody.test(b) ? 0.95 : 0.75);

  // automatic replies
  if (R.oooSubj.test(s) || R.oooBody.test(b)) set('out_of_office', R.oooBody.test(b) ? 0.92 : 0.8);
  if (autoSubmitted) set('auto_reply', 0.75);
  if (R.autoBody.test(sb)) set('auto_reply', autoSubmitted ? 0.9 : 0.72);

  // codes
  const hasCode = !!sig.entities.codes?.length;
  if (hasCode && R.codeWords.test(sb)) set('verification_code', 0.95);
  else if (hasCode) set('verification_code', 0.45); // conference dial-in codes look the same
  else if (R.codeWords.test(s)) set('verification_code', 0.6);

  // receipts and notifications
  const hasMoney = !!sig.entities.money?.length;
  const hasOrder = !!sig.entities.order_numbers?.length;
  if (R.receipt.test(sb)) set('receipt', hasMoney || hasOrder ? 0.88 : 0.55);
  else if (hasMoney && hasOrder) set('receipt', 0.7);
  const noReply = R.noReplyFrom.test(sig.from);
  if (R.shipping.test(sb) || sig.entities.tracking_numbers?.length) set('notification', 0.8);
  if (R.notifBody.test(sb)) set('notification', noReply ? 0.85 : 0.72);
  else if (noReply && !listMail && bodyWords >= 3) set('notification', 0.6);

  // bulk
  if (listMail) {
    set('newsletter', R.newsletter.test(sb) || sig.spam > 0.5 ? 0.85 : 0.66);
  } else if (R.unsubFooter.test(b) && (R.newsletter.test(sb) || b.length > 1500)) set('newsletter', 0.7);
  if (R.newsletter.test(s)) set('newsletter', listMail ? 0.9 : 0.62);

  // unsolicited
  const coldRule = R.coldPhrases.test(sb);
  if (!sig.knownSender && !listMail && substantive) {
    // short mails carry too little text for the model alone
    if (sig.cold > 0.8 && (coldRule || b.length >= 250)) set('cold_pitch', 0.5 + 0.4 * sig.cold * (coldRule ? 1 : 0.85));
    else if (coldRule && sig.cold > 0.4) set('cold_pitch', 0.6);
    if (sig.spam > 0.9) set('cold_pitch', 0.55 + 0.3 * (sig.spam - 0.9) * 10 * 0.5);
  }

  // conversation intents
  if (R.schedChange.test(sb)) set('schedule_change', 0.86);
  if (R.meetingAsk.test(sb) && R.meetingNoun.test(sb)) set('meeting_request', sig.entities.dates?.length ? 0.84 : 0.78);
  else if (R.meetingAsk.test(sb)) set('meeting_request', 0.62);
  if (R.complaint.test(sb)) set('complaint', 0.8);
  if (R.support.test(sb)) set('support', R.complaint.test(sb) ? 0.7 : 0.76);
  if (R.sales.test(sb) && !noReply) set('sales_inquiry', countQ(b) > 0 || sig.request > 0.6 ? 0.76 : 0.62);
  if (R.decline.test(b)) set('decline', 0.82);
  // an unsubscribe footer in a long mail is not a request to unsubscribe
  if (!listMail && (R.unsub.test(s) || (shortBody && R.unsub.test(b)))) set('unsubscribe', b.length < 300 ? 0.9 : 0.75);
  if (R.thanks.test(b) && b.length < 400 && countQ(b) === 0) set('thanks', sig.request > 0.8 ? 0.6 : 0.74);
  // "Could you send…?" asks for an action; "Does the API…?" asks for an answer.
  const ruleReq = R.requestRule.test(b);
  if (R.modalAsk.test(b)) set('request', 0.72);
  if (sig.request > 0.5 || ruleReq) set('request', Math.min(0.71, 0.45 + 0.25 * sig.request + (ruleReq ? 0.1 : 0)));
  const q = countQ(b) + countQ(s);
  if (q > 0) set('question', R.questionStart.test(sb) ? 0.68 : 0.6);

  // Highest score wins; on a tie the more specific (automated) kind wins.
  const PRIORITY: Intent[] = ['bounce', 'out_of_office', 'verification_code', 'auto_reply', 'receipt', 'unsubscribe', 'schedule_change', 'complaint', 'decline', 'newsletter', 'cold_pitch', 'notification', 'meeting_request', 'support', 'sales_inquiry', 'thanks', 'request', 'question'];
  let best: Intent = 'unclassified';
  let bestScore = 0;
  for (const k of PRIORITY) {
    const v = scores[k] ?? 0;
    if (v > bestScore + 1e-9) {
      best = k;
      bestScore = v;
    }
  }
  if (bestScore < INTENT_THRESHOLD) return { intent: 'unclassified', confidence: bestScore, scores };
  return { intent: best, confidence: bestScore, scores };
}
