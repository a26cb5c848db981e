// Sentence segmentation, sentence-pair windows and the hand-written window
// features of the injection model (v2). Shared by run time (injection.ts)
// and training (scripts/lib-classifier), so both see exactly the same
// windows and numbers.
//
// Why windows of sentences: an attack is one or two sentences somewhere in an
// ordinary email; scoring the whole document (or 1,000-character blocks)
// dilutes it in the host text. Each window is at most two sentences
// (≤ 2 × SEG_CHARS characters) and the message score is the window maximum.
// Why hand-written features: an n-gram model learns its training sources'
// phrasing; who is addressed (an AI, "you"), what is asked (forward, grant,
// pay, delete, reveal, install), whose resources (the inbox, the account),
// for whom (an outside address), and how (secretly, urgently, hidden, after
// the signature) carry over to attacks phrased in ways never seen.
import { mailOutRequest } from './mail-out.js';

/** Longest sentence segment (characters); longer sentences are cut at whitespace. */
export const SEG_CHARS = 250;
/** Most segments read per message (subject, visible and hidden text together). */
export const MAX_SEGMENTS = 160;

// segment flags
export const F_SUBJECT = 1;
export const F_HIDDEN = 2;
export const F_QUOTED = 4;
export const F_AFTER_SIG = 8;

export interface Segment {
  a: number;
  b: number;
  flags: number;
  /** 0 … 1: where the segment starts within its part (subject, visible, hidden) */
  pos: number;
}

const SIG_LINE = /^(--|-- |—|__+|best|best regards|kind regards|warm regards|regards|thanks|thanks again|many thanks|thank you|cheers|sincerely|yours|yours truly|all the best|br|mfg|viele grüße|cordialement|saludos)[,.!]?\s*$/;
const QUOTE_START = /^(on .{4,160} wrote:|-{2,}\s*original message\s*-{2,}|-{5,} ?forwarded message.*|le .{4,120} a écrit ?:|am .{4,120} schrieb .{1,80}:|el .{4,120} escribió:)$/;

/**
 * Split `doc[from, to)` (lower-cased) into sentence segments with structure
 * flags: quoted history ("> " lines, after "On … wrote:"), after a signature
 * or sign-off line. Blank lines and sentence punctuation end a segment.
 */
export function segment(doc: string, from: number, to: number, base: number, out: Segment[], max = MAX_SEGMENTS): void {
  const span = Math.max(1, to - from);
  let inQuote = false;
  let afterSig = false;
  let cur = -1;
  let curFlags = 0;
  const flush = (end: number): void => {
    if (cur >= 0) {
      let e = end;
      while (e > cur && doc.charCodeAt(e - 1) <= 32) e--;
      if (e > cur && out.length < max) out.push({ a: cur, b: e, flags: curFlags, pos: (cur - from) / span });
    }
    cur = -1;
  };
  let ls = from;
  while (ls < to && out.length < max) {
    let le = doc.indexOf('\n', ls);
    if (le < 0 || le > to) le = to;
    let a = ls;
    while (a < le && doc.charCodeAt(a) <= 32) a++;
    if (a >= le) {
      flush(ls);
      ls = le + 1;
      continue;
    }
    let quoted = false;
    if (doc.charCodeAt(a) === 62) {
      quoted = true;
      while (a < le && (doc.charCodeAt(a) === 62 || doc.charCodeAt(a) === 32)) a++;
      if (a >= le) {
        flush(ls);
        ls = le + 1;
        continue;
      }
    }
    const lineFlags = base | (quoted || inQuote ? F_QUOTED : 0) | (afterSig ? F_AFTER_SIG : 0);
    if (cur >= 0 && lineFlags !== curFlags) flush(ls);
    if (le - a < 170) {
      let e = le;
      while (e > a && doc.charCodeAt(e - 1) <= 32) e--;
      const t = doc.slice(a, e);
      if (QUOTE_START.test(t)) {
        flush(ls);
        inQuote = true;
        ls = le + 1;
        continue;
      }
      if (SIG_LINE.test(t)) {
        // the sign-off belongs to the body; what follows it is "after the signature"
        if (cur < 0) {
          cur = a;
          curFlags = lineFlags;
        }
        flush(e);
        afterSig = true;
        ls = le + 1;
        continue;
      }
    }
    if (cur < 0) {
      cur = a;
      curFlags = lineFlags;
    }
    for (let i = a; i < le; i++) {
      const c = doc.charCodeAt(i);
      if ((c === 46 || c === 33 || c === 63) && (i + 1 >= le || doc.charCodeAt(i + 1) === 32)) {
        flush(i + 1);
        let j = i + 1;
        while (j < le && doc.charCodeAt(j) === 32) j++;
        if (j < le) {
          cur = j;
          curFlags = lineFlags;
        }
        i = j - 1;
      } else if (cur >= 0 && i - cur >= SEG_CHARS && c === 32) {
        flush(i);
        cur = i + 1;
        curFlags = lineFlags;
      } else if (cur < 0 && c > 32) {
        cur = i;
        curFlags = lineFlags;
      }
      if (out.length >= max) return;
    }
    ls = le + 1;
  }
  flush(Math.min(to, ls));
}

// ---------------------------------------------------------------- lexicon
// Word classes (bit flags), looked up once per word.
const W_AI = 1 << 0;
const W_YOU = 1 << 1;
const W_POLITE = 1 << 2;
const W_OUTCTL = 1 << 3;
const W_OVERRIDE = 1 << 4;
const W_RESOURCE = 1 << 5;
const W_THIRD = 1 << 6;
const W_SECRET = 1 << 7;
const W_URGENT = 1 << 8;
const W_ACTION = 1 << 9;
const W_JAIL = 1 << 10;
const W_FIRST = 1 << 11;
const W_IMPER = 1 << 12;
const W_FILLER = 1 << 13;
const W_MODAL = 1 << 14;
// (2.11, the goal features: columns the 2.7 trees never read; words of these classes only, so the
// classes above are unchanged for every word) the reader's output rewritten or encoded; content put
// into it; the user or reader spoken of; malicious goals; an output verb and "only / exactly"; the
// override and instruction words of German, French, Spanish, Italian and Portuguese
const W_REWRITE = 1 << 16;
const W_INSERT = 1 << 17;
const W_USER = 1 << 18;
const W_MAL = 1 << 19;
const W_ML_OVR = 1 << 20;
const W_ML_INSTR = 1 << 21;
const W_OUTVERB = 1 << 22;
const W_ONLY = 1 << 23;

const LEX = new Map<string, number>();
function add(mask: number, words: string): void {
  for (const w of words.split(/\s+/)) if (w) LEX.set(w, (LEX.get(w) ?? 0) | mask);
}
add(W_AI, 'ai assistant assistants agent agents bot bots chatbot llm llms gpt chatgpt copilot claude gemini model models automated automation ki ia assistent assistente asistente robot');
add(W_YOU, 'you your yours yourself u du dein deine vous votre tu usted');
add(W_POLITE, 'please kindly pls bitte merci');
add(W_OUTCTL, 'respond reply answer output print say write repeat verbatim summary summarize summarise response begin start only format translate');
add(W_OVERRIDE, 'ignore ignoring disregard forget override bypass instead previous prior above earlier instruction instructions rules guidelines prompt prompts directive directives policy task tasks vergiss ignoriere anweisungen oublie ignorez ignora olvida');
add(W_RESOURCE, 'inbox mailbox email emails messages message contacts contact address files file documents folder drive account accounts password passwords credentials credential api key keys token tokens calendar configuration config secret secrets code codes bank card iban payroll admin database records logs');
add(W_THIRD, 'friend external beneficiary outside partner http https www');
add(W_SECRET, 'secretly quietly silently discreetly confidential secret covertly unnoticed');
add(W_URGENT, 'urgent urgently immediately asap now quickly hurry right away deadline');
add(W_ACTION, 'reply replying tell give include print show list paste forward forwarding export send transfer wire pay paid grant give add share change update replace reset disable delete remove wipe erase empty download install run execute bcc email post approve unlock create upload leak exfiltrate reveal disclose paste attach');
add(W_JAIL, 'jailbreak jailbroken dan unrestricted unfiltered uncensored roleplay pretend character persona hypothetical imagine mode developer simulate simulation opposite evil');
add(W_FIRST, 'i me my mine we our us ours');
add(W_IMPER, 'ignore disregard forget forward send transfer wire pay grant give add share change update replace reset disable delete remove wipe erase empty download install run execute reply respond tell write print output say repeat reveal show list include paste email post approve create set unlock act pretend stop answer translate summarize summarise provide generate explain describe bcc copy export attach make do follow call invoke open click visit contact inform notify mark leak upload disclose begin start use');
add(W_FILLER, 'please kindly now then also and immediately just so first next finally instead');
add(W_MODAL, 'could can would will need must should');
add(W_REWRITE, 'misspell misspelled misspelling misspellings scramble scrambled anagram anagrams rearrange rearranged shuffle shuffled reverse reversed backwards encode encoded encrypt encrypted obfuscate obfuscated jumble jumbled garble garbled base64 binary hex hexadecimal morse leetspeak leet rot13 cipher caesar homophones homophone uppercase capitalize emoji emojis emoticons substitute swap');
add(W_INSERT, 'link links url urls hyperlink hyperlinks website advert adverts advertisement advertisements advertise advertising ad ads promotion promote promotional slogan hashtag hashtags clickbait snippet insert append prepend embed incorporate lien publicité enlace publicidad anuncio collegamento pubblicità werbung anzeige');
add(W_USER, "user users user's reader readers recipient recipients nutzer benutzer nutzerin benutzerin leser utilisateur utilisateurs utilisatrice lecteur usuario usuarios usuaria lector utente utenti lettore utilizador utilizadores usuário usuários");
add(W_MAL, 'malware keylogger ransomware backdoor botnet rootkit trojan virus worm exploit exploits exploiting vulnerability vulnerabilities cookies steal stealing steals exfiltrate exfiltration harvest phishing spam mining miner cryptominer monero sabotage infect shellcode');
add(W_ML_OVR, 'vergiss vergesst vergessen ignoriere ignoriert ignorieren missachte anweisungen anweisung vorherigen vorherige bisherigen obigen befehle regeln oublie oubliez oublier ignorez ignorer consignes précédentes précédente précédents règles ignora ignorad olvida olvide olvidar instrucciones anteriores indicaciones reglas ignorate dimentica dimenticate istruzioni precedenti regole esqueça esqueca esqueçam instruções instrucoes regras');
add(W_ML_INSTR, "du dich dir dein deine deinen toi te vous votre vos tes usted tú ti tuo tua tuoi você voce vocês sag sage schreib schreibe antworte gib nenne erzähle erzähl zeig zeige übersetze dis écris ecris donne réponds reponds montre traduis agis fais dime escribe responde contesta muestra traduce actúa haz dimmi scrivi rispondi mostra traduci agisci fai diga escreva responda mostre traduza aja finja faça jetzt sofort maintenant désormais ahora adesso agora");
add(W_OUTVERB, 'say print respond reply answer output write repeat return type begin start sag sage schreib schreibe antworte gib dis écris ecris réponds reponds di escribe responde contesta scrivi rispondi diga escreva responda');
add(W_ONLY, 'only exactly just solely verbatim nur ausschließlich genau lediglich seulement uniquement exactement solo solamente únicamente unicamente exactamente soltanto esattamente apenas somente exatamente');
// what an assistant produces for its user: "add this to your reply", "in your summary", "your code"
const OUTPUT_NOUNS = new Set('reply replies response responses answer answers summary summaries output outputs code solution implementation translation explanation message analysis review report result results text'.split(' '));
const YOUR = new Set(['your', 'ihre', 'deine', 'deiner', 'votre', 'tu', 'su']);

// privileged actions (the action_request entity vocabulary)
export const ACTIONS = ['forward_mail', 'grant_access', 'transfer_money', 'change_payment_details', 'change_credentials', 'reveal_secrets', 'delete_data', 'contact_third_party', 'install_or_run'] as const;
export type RequestedAction = (typeof ACTIONS)[number];
const ACTION_RES: ReadonlyArray<[RequestedAction, RegExp]> = [
  ['forward_mail', /\b(forward|export|send|bcc|copy|upload|sync)\b[^.?!\n]{0,50}\b(all|every|entire|whole|the (last|latest|recent|past)|(these|those|the user's|their|his|her|this) (emails?|messages?|inbox|mailbox|mails?|conversations?|threads?))\b[^.?!\n]{0,40}\b(emails?|messages?|inbox|mailbox|mails?|conversations?|threads?|correspondence)\b|\b(auto-?forward(ing)?|forwarding rule|forward (all|every) (new )?(emails?|messages?|mail))\b/],
  ['grant_access', /\b(grant|give|add|share|provide|assign|unlock|invite|create)\b[^.?!\n]{0,60}\b(access|permissions?|admin(istrator)?s?|owner|edit rights|full rights|rights|privileges?|guest code|user account|collaborator|sudo)\b/],
  ['transfer_money', /\b(transfer|wire|pay|send|remit|approve)\b[^.?!\n]{0,50}(\$|€|£|\b(usd|eur|gbp|money|funds|payment|gift ?cards?|bitcoin|btc|crypto|balance|invoice)\b)/],
  // "be paid to the new account below": a payee changed by mail, the usual invoice fraud.
  ['change_payment_details', /\b(pay|paid|payments?|send|sent|transfer(red)?|wire[ds]?|remit(ted)?|deposit(ed)?)\b[^.?!\n]{0,40}\b(to|into) (the|a|our|this|my) (new|updated|different|other) (bank )?account\b|\b(change|update|replace|switch|amend|new)\b[^.?!\n]{0,50}\b(bank (details|account)|payment (details|account|information|method)|iban|account (number|details)|routing|deposit account|beneficiary|remittance|wire instructions)\b/],
  ['change_credentials', /\b(reset|change|disable|turn off|remove|update|add)\b[^.?!\n]{0,40}\b(password|passcode|2fa|two-factor|mfa|multi-factor|recovery (email|phone|address)|ssh key|security questions?|authenticat\w*)\b/],
  // Secrets, and what a code-by-mail or a bank login gives away: "reply to this email with the
  // 6-digit code we just sent", "send me the login details for the bank portal", "a summary
  // including the account numbers".
  ['reveal_secrets', /\b(reveal|send|share|tell|give|reply(ing)?( to (this|my|the) (e-?mail|message))? with|include|paste|print|show|disclose|leak|list)\b[^.?!\n]{0,50}\b(api keys?|tokens?|passwords?|credentials|secrets?|verification codes?|one-time (codes?|passwords?)|otp|system prompt|\.env|private key|access codes?|password reset (email|link)s?|(log-?in|sign-?in|logon) (details|credentials|info(rmation)?)|usernames? and passwords?|\d-digit (code|pin)|(security|confirmation|authori[sz]ation|sms|2fa|mfa) codes?|the code (we|you|that) (just )?(sent|received|got)|(bank |credit )?(card|account) numbers?|cvv|social security numbers?|ssn)\b/],
  ['delete_data', /\b(delete|remove|wipe|erase|purge|empty|destroy|drop)\b[^.?!\n]{0,40}\b(all|every|emails?|messages?|logs?|audit|records?|folders?|files?|backups?|trash|history|alerts?|database|account)\b/],
  ['contact_third_party', /\b(email|message|contact|write to|send (a message|an email) to|post|reply to all|notify)\b[^.?!\n]{0,60}([\w.+-]+@[\w-]+\.[\w.]+|\bevery(one| contact)\b|\ball (contacts|recipients)\b|\baddress book\b)/],
  ['install_or_run', /\b(download|install|run|execute|open|launch)\b[^.?!\n]{0,60}(\b(installer|script|command|extension|plugin|macro|binary|executable|package|update from)\b|\.(exe|sh|ps1|bat|msi|crx|dmg|apk)\b|\bcurl\b|\|\s*(ba)?sh\b)/],
];

/**
 * A request passed on rather than made: "the CEO asked that the invoices be paid to…", "she wants
 * you to send…". Marks a segment's actions as asked for (a bit above the ACTIONS bits); not a
 * window feature, so the models' inputs do not change.
 */
const REPORTED_REQUEST_RE = /\b(asked|asks|requested|requests|instructed|wants|wanted|would like|needs) (that|you|us|me|for)\b/;
const REPORTED_REQUEST = 1 << 15;
/** (session 14) The sentence holds its own asking form (mail-out.ts: "pourriez-vous", "bitte", 请 …). */
const ASKED_IN_SENTENCE = 1 << 14;
const FORWARD_MAIL = ACTIONS.indexOf('forward_mail');

// secrecy and "skip the human" phrases
const SECRECY_RE = /\b(do not|don't|dont|never|without) (tell|telling|mention|mentioning|inform|informing|notify|notifying|alert|alerting|ask|asking|reveal|confirm|confirming|bother)\b|\b(keep (this|it) (between us|secret|confidential|private|quiet))|\bdelete (this|the) (email|message) (afterwards|after|when)|\b(skip|no need (for|to)|without|bypass(ing)?) (the )?((usual|normal|standard|regular) )?(confirm|confirmation|approval|verif|sign-?off)\w*|\bpre-?approved\b|\b(secretly|quietly|silently|discreetly)\b/;

// ---------------------------------------------------------------- features
/** Names of the window features, in vector order (the tree model indexes them). */
export const FEATURES = [
  'ngram', // the n-gram model's margin for the window (logit)
  'words',
  'ai',
  'you',
  'imperative',
  'polite',
  'output_control',
  'override',
  'resources',
  'third_party',
  'secrecy',
  'urgency',
  'action',
  'jailbreak',
  'first_person',
  'special',
  'questions',
  'subject',
  'hidden',
  'after_signature',
  'quoted',
  'position',
  'windows',
  'emails',
  'doc', // the document model's margin for the window's part (subject + visible, or hidden text); 0 without one
  'your_output', // "your reply / response / summary / code …": the text speaks to whoever writes the output (2.1)
  // (2.11, recipe option goalFeatures: the goal taxonomy as tree inputs — learned weights where the goal
  // rules have fixed strengths; a model trained without the option never reads these columns)
  'goal_rewrite', // the output rewritten or encoded: misspell, scramble, reverse, base64, morse, leetspeak, emoji …
  'goal_insert', // content put into the output: link, url, advert, slogan, hashtag, insert, append …
  'goal_user', // the user / reader / recipient spoken of (also de, fr, es, it, pt)
  'goal_malicious', // malicious goals: malware, keylogger, steal, exfiltrate, cookies, phishing, mining …
  'output_exact', // an output verb (say, print, respond, answer … and de/fr/es/it/pt) followed within four words by only / exactly / a quotation or a colon
  'ml_override', // override words in German, French, Spanish, Italian, Portuguese (vergiss, anweisungen, oubliez, olvida, istruzioni, esqueça …)
  'ml_instruct', // second person, imperatives and "now" in those languages (du, vous, usted, sag, écris, responde, scrivi, diga, jetzt …)
] as const;
export const N_FEATURES = FEATURES.length;

/** The columns of the 2.10 and earlier trees (FEATURES up to your_output); the goal features follow. */
export const N_FEATURES_27 = 26;
/** Per-segment counts (one row of SEG_STRIDE numbers per segment). */
const SEG_STRIDE = 24;
// row layout: 0 words, 1 ai, 2 you, 3 imperative, 4 polite, 5 outctl, 6 override,
// 7 resources, 8 third, 9 secrecy, 10 urgency, 11 action, 12 jail, 13 first, 14 special, 15 questions,
// 16 your_output, 17 goal_rewrite, 18 goal_insert, 19 goal_user, 20 goal_malicious, 21 output_exact,
// 22 ml_override, 23 ml_instruct
// (emails are counted into `third` and separately tracked in segEmails)

const WORD = /[a-z0-9à-öø-ÿß'_-]+|[?:,<>|#[\]{}=@]/g;
/** Opening quotation marks: an output verb followed by one dictates the output ("say \"…\""). */
function isOpenQuote(c: number): boolean {
  return c === 34 || c === 0x201c || c === 0x201e || c === 0xab || c === 0x2018 || c === 0x60;
}

export interface SegFeatures {
  rows: Float32Array;
  emails: Uint16Array;
  /** bit set of ACTIONS found per segment */
  actions: Uint16Array;
}

/** Hand-written counts per segment; `actions` marks privileged requests found in each. */
export function segmentFeatures(doc: string, segs: readonly Segment[], out?: SegFeatures): SegFeatures {
  const n = segs.length;
  const f: SegFeatures =
    out && out.rows.length >= n * SEG_STRIDE ? out : { rows: new Float32Array(Math.max(n, 1) * SEG_STRIDE), emails: new Uint16Array(Math.max(n, 1)), actions: new Uint16Array(Math.max(n, 1)) };
  f.rows.fill(0, 0, n * SEG_STRIDE);
  f.emails.fill(0, 0, n);
  f.actions.fill(0, 0, n);
  for (let s = 0; s < n; s++) {
    const { a, b } = segs[s];
    const r = s * SEG_STRIDE;
    const rows = f.rows;
    let clauseStart = true;
    let imper = 0;
    let prev = 0; // class mask of the previous word
    let prevWord = '';
    let actionWord = false;
    let secretHint = false;
    let sinceOut = 99; // words since the last output verb (output_exact)
    WORD.lastIndex = a;
    let m: RegExpExecArray | null;
    while ((m = WORD.exec(doc)) !== null && m.index < b) {
      const w = m[0];
      if (w.length === 1 && !((w >= 'a' && w <= 'z') || (w >= '0' && w <= '9'))) {
        if (w === '?') rows[r + 15]++;
        else if (w === '@') {
          f.emails[s]++;
          rows[r + 8]++;
        } else if (w === ',' || w === ':') {
          if (w === ':' && sinceOut <= 1) rows[r + 21]++;
          if (m.index - a < 80) clauseStart = true;
        } else rows[r + 14]++;
        continue;
      }
      rows[r]++;
      sinceOut++;
      if (sinceOut <= 4 && m.index > a && isOpenQuote(doc.charCodeAt(m.index - 1))) {
        rows[r + 21]++;
        sinceOut = 99;
      }
      if (YOUR.has(prevWord) && OUTPUT_NOUNS.has(w)) rows[r + 16]++;
      const c = LEX.get(w) ?? 0;
      if (c) {
        if (c & W_AI) rows[r + 1]++;
        if (c & W_YOU) {
          rows[r + 2]++;
          // "could you", "can you", "need you to": a request
          if (prev & W_MODAL) rows[r + 4]++;
        }
        if (c & W_POLITE) rows[r + 4]++;
        if (c & W_OUTCTL) rows[r + 5]++;
        if (c & W_OVERRIDE) rows[r + 6]++;
        if (c & W_RESOURCE) rows[r + 7]++;
        if (c & W_THIRD) rows[r + 8]++;
        if (c & W_SECRET) {
          rows[r + 9]++;
          secretHint = true;
        }
        if (c & W_URGENT) rows[r + 10]++;
        if (c & W_ACTION) actionWord = true;
        if (c & W_JAIL) rows[r + 12]++;
        if (c & W_FIRST) rows[r + 13]++;
        if (c >= W_REWRITE) {
          if (c & W_REWRITE) rows[r + 17]++;
          if (c & W_INSERT) rows[r + 18]++;
          if (c & W_USER) rows[r + 19]++;
          if (c & W_MAL) rows[r + 20]++;
          if (c & W_ML_OVR) rows[r + 22]++;
          if (c & W_ML_INSTR) rows[r + 23]++;
          if (c & W_ONLY && sinceOut <= 4) {
            rows[r + 21]++;
            sinceOut = 99;
          }
          if (c & W_OUTVERB) sinceOut = 0;
        }
      }
      if (w === 'tell' || w === 'mention' || w === 'notify' || w === 'inform' || w === 'confirm' || w === 'confirmation' || w === 'approved' || w === 'preapproved' || w === 'keep' || w === 'afterwards') secretHint = true;
      if (clauseStart) {
        if (c & W_IMPER && imper === 0) imper = 1;
        if (!(c & (W_FILLER | W_AI)) && prevWord !== 'dear' && prevWord !== 'hey' && prevWord !== 'hi') clauseStart = false;
      }
      prev = c;
      prevWord = w;
    }
    rows[r + 3] = imper;
    if (secretHint && SECRECY_RE.test(doc.slice(a, b))) rows[r + 9] += 2;
    if (actionWord) {
      const t = doc.slice(a, b);
      let bits = 0;
      for (let k = 0; k < ACTION_RES.length; k++) if (ACTION_RES[k][1].test(t)) bits |= 1 << k;
      let cnt = 0;
      for (let x = bits; x; x &= x - 1) cnt++;
      rows[r + 11] = cnt;
      if (bits && REPORTED_REQUEST_RE.test(t)) bits |= REPORTED_REQUEST;
      f.actions[s] = bits;
    }
    // (session 14) polite and non-English requests to send the mailbox's mail out (mail-out.ts): the
    // action only, not the `action` feature above (a model input, kept as the models were trained)
    const out = b - a >= 12 ? mailOutRequest(doc.slice(a, b)) : 0;
    if (out) f.actions[s] |= (1 << FORWARD_MAIL) | (out === 2 ? ASKED_IN_SENTENCE : 0);
  }
  return f;
}

/** A window: segments [i, j] (j = i or i + 1) of one part. */
export type Window = [number, number];

/** Sentence-pair windows: consecutive segments of the same part; a lone segment is its own window. */
export function pairWindows(segs: readonly Segment[], out: Window[] = []): Window[] {
  out.length = 0;
  const n = segs.length;
  for (let i = 0; i < n; i++) {
    const part = segs[i].flags & (F_SUBJECT | F_HIDDEN);
    const next = i + 1 < n && (segs[i + 1].flags & (F_SUBJECT | F_HIDDEN)) === part;
    const prevSame = i > 0 && (segs[i - 1].flags & (F_SUBJECT | F_HIDDEN)) === part;
    if (next) out.push([i, i + 1]);
    else if (!prevSame) out.push([i, i]);
  }
  return out;
}

/** Fill `vec` with the window's feature vector (`ngram` = its n-gram margin). */
export function windowVector(segs: readonly Segment[], f: SegFeatures, w: Window, ngram: number, nWindows: number, vec: Float32Array, doc = 0): Float32Array {
  const [i, j] = w;
  const ri = i * SEG_STRIDE;
  const rj = j * SEG_STRIDE;
  const same = i === j;
  vec[0] = ngram;
  for (let k = 0; k < 16; k++) {
    const v = f.rows[ri + k] + (same ? 0 : f.rows[rj + k]);
    // row k → feature k + 1 (words … questions)
    vec[k + 1] = v;
  }
  const flags = segs[i].flags | segs[j].flags;
  vec[17] = flags & F_SUBJECT ? 1 : 0;
  vec[18] = flags & F_HIDDEN ? 1 : 0;
  vec[19] = flags & F_AFTER_SIG ? 1 : 0;
  vec[20] = flags & F_QUOTED ? 1 : 0;
  vec[21] = segs[i].pos;
  vec[22] = nWindows;
  vec[23] = f.emails[i] + (same ? 0 : f.emails[j]);
  vec[24] = doc;
  vec[25] = f.rows[ri + 16] + (same ? 0 : f.rows[rj + 16]);
  // (2.11) the goal features; a vector of the 2.10 trees' width stops before them
  for (let k = 17; k < SEG_STRIDE && k + 9 < vec.length; k++) vec[k + 9] = f.rows[ri + k] + (same ? 0 : f.rows[rj + k]);
  return vec;
}

/** The document the injection model reads: subject, visible text, hidden text (lower-cased), and their segments. */
export interface ScanDoc {
  doc: string;
  segs: Segment[];
}

export function buildScanDoc(subjectLower: string, visibleLower: string, hiddenLower: string, maxVisible: number, maxHidden: number): ScanDoc {
  const vis = visibleLower.length > maxVisible ? visibleLower.slice(0, maxVisible) : visibleLower;
  const hid = hiddenLower.length > maxHidden ? hiddenLower.slice(0, maxHidden) : hiddenLower;
  const doc = subjectLower + '\n\n' + vis + '\n\n' + hid;
  const segs: Segment[] = [];
  const s0 = subjectLower.length;
  if (s0 > 0) segment(doc, 0, s0, F_SUBJECT, segs, 2);
  const v0 = s0 + 2;
  // hidden text keeps a share of the budget even after a long visible body
  const visBudget = hid.length ? MAX_SEGMENTS - 24 : MAX_SEGMENTS;
  segment(doc, v0, v0 + vis.length, 0, segs, visBudget);
  const h0 = v0 + vis.length + 2;
  if (hid.length) segment(doc, h0, h0 + hid.length, F_HIDDEN, segs, MAX_SEGMENTS);
  return { doc, segs };
}

/**
 * Privileged actions requested in the segments: an action phrase in a
 * sentence that asks (imperative opening, "please", "could you") — "Finance
 * will wire the reimbursement" states, it does not ask.
 */
export function requestedActions(f: SegFeatures, n: number): RequestedAction[] {
  let bits = 0;
  for (let s = 0; s < n; s++) {
    if (f.actions[s] && (f.rows[s * SEG_STRIDE + 3] > 0 || f.rows[s * SEG_STRIDE + 4] > 0 || f.actions[s] & (REPORTED_REQUEST | ASKED_IN_SENTENCE))) bits |= f.actions[s];
  }
  const out: RequestedAction[] = [];
  for (let k = 0; k < ACTIONS.length; k++) if (bits & (1 << k)) out.push(ACTIONS[k]);
  return out;
}
