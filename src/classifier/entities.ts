// Entity extraction with normalisation: dates/times → ISO 8601 (relative
// dates anchored at `now`, in UTC), money → {amount, ISO 4217 currency},
// phones → E.164, plus emails, URLs, one-time codes, order and tracking
// numbers, people and organisations.

export interface Entities {
  dates?: { text: string; value: string }[];
  money?: { text: string; amount: number; currency: string }[];
  emails?: string[];
  phones?: { text: string; e164: string }[];
  urls?: string[];
  codes?: string[];
  order_numbers?: string[];
  tracking_numbers?: string[];
  people?: string[];
  organizations?: string[];
  /** privileged actions the message asks for (the action_request injection category), with the sentence that asks */
  action_requests?: { action: string; text: string }[];
}

/** Per-kind cap so a huge message cannot produce a huge event. */
const MAX_PER_KIND = 20;

const MONTHS: Record<string, number> = {
  jan: 1, january: 1, januar: 1, janvier: 1, enero: 1, janeiro: 1, gennaio: 1,
  feb: 2, february: 2, februar: 2, février: 2, fevrier: 2, febrero: 2, fevereiro: 2, febbraio: 2,
  mar: 3, march: 3, märz: 3, maerz: 3, mars: 3, marzo: 3, março: 3,
  apr: 4, april: 4, avril: 4, abril: 4, aprile: 4,
  may: 5, mai: 5, mayo: 5, maio: 5, maggio: 5,
  jun: 6, june: 6, juni: 6, juin: 6, junio: 6, junho: 6, giugno: 6,
  jul: 7, july: 7, juli: 7, juillet: 7, julio: 7, julho: 7, luglio: 7,
  aug: 8, august: 8, août: 8, aout: 8, agosto: 8,
  sep: 9, sept: 9, september: 9, septembre: 9, septiembre: 9, setembro: 9, settembre: 9,
  oct: 10, october: 10, oktober: 10, octobre: 10, octubre: 10, outubro: 10, ottobre: 10,
  nov: 11, november: 11, novembre: 11, noviembre: 11, novembro: 11,
  dec: 12, december: 12, dezember: 12, décembre: 12, decembre: 12, diciembre: 12, dezembro: 12, dicembre: 12,
};
// A generic word, checked against MONTHS in code: much cheaper than a
// 90-way alternation tried at every word boundary.
const MONTH_RE = String.raw`[a-zà-ÿ]{3,10}`;
const WEEKDAYS: Record<string, number> = { sunday: 0, sun: 0, monday: 1, mon: 1, tuesday: 2, tue: 2, tues: 2, wednesday: 3, wed: 3, thursday: 4, thu: 4, thurs: 4, friday: 5, fri: 5, saturday: 6, sat: 6 };
const TZ: Record<string, string> = {
  utc: 'Z', gmt: 'Z', z: 'Z', est: '-05:00', edt: '-04:00', cst: '-06:00', cdt: '-05:00', mst: '-07:00', mdt: '-06:00', pst: '-08:00', pdt: '-07:00',
  cet: '+01:00', cest: '+02:00', bst: '+01:00', ist: '+05:30', jst: '+09:00', aest: '+10:00', eet: '+02:00', eest: '+03:00',
};

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

function validDate(y: number, m: number, d: number): boolean {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1900 || y > 2200) return false;
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

// time: "3pm", "3:30 PM", "15:00", "noon", optional tz
const TIME_SRC = String.raw`(?:(\d{1,2})(?::(\d{2}))?\s*(a\.?m\.?|p\.?m\.?)|(\d{1,2}):(\d{2})(?!\d)|(\d{1,2})h(\d{2})?|(noon|midday|midnight))(?:\s*\(?(utc|gmt|est|edt|cst|cdt|mst|mdt|pst|pdt|cet|cest|bst|ist|jst|aest|eet|eest|z)\)?|\s*([+-]\d{2}:?\d{2}))?`;

interface TimeParts { h: number; mi: number; tz: string }
function parseTime(m: RegExpExecArray, o: number): TimeParts | null {
  let h: number;
  let mi = 0;
  if (m[o] !== undefined) {
    h = +m[o];
    mi = m[o + 1] ? +m[o + 1] : 0;
    const pm = m[o + 2].toLowerCase().startsWith('p');
    if (h < 1 || h > 12) return null;
    if (pm && h !== 12) h += 12;
    if (!pm && h === 12) h = 0;
  } else if (m[o + 3] !== undefined) {
    h = +m[o + 3];
    mi = +m[o + 4];
  } else if (m[o + 5] !== undefined) {
    h = +m[o + 5];
    mi = m[o + 6] ? +m[o + 6] : 0;
  } else if (m[o + 7] !== undefined) {
    h = m[o + 7].toLowerCase() === 'midnight' ? 0 : 12;
  } else return null;
  if (h > 23 || mi > 59) return null;
  let tz = '';
  if (m[o + 8]) tz = TZ[m[o + 8].toLowerCase()] ?? '';
  else if (m[o + 9]) {
    const t = m[o + 9].replace(':', '');
    tz = t.slice(0, 3) + ':' + t.slice(3);
  }
  return { h, mi, tz };
}
const TIME_GROUPS = 10;

function iso(y: number, mo: number, d: number, t: TimeParts | null): string {
  const date = `${pad(y, 4)}-${pad(mo)}-${pad(d)}`;
  return t ? `${date}T${pad(t.h)}:${pad(t.mi)}:00${t.tz}` : date;
}

function inferYear(mo: number, d: number, now: Date): number {
  const y = now.getUTCFullYear();
  const cand = Date.UTC(y, mo - 1, d);
  // a date more than ~2 months behind `now` most likely means next year
  return cand < now.getTime() - 60 * 86400000 ? y + 1 : y;
}

function addDays(now: Date, n: number): [number, number, number] {
  const dt = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + n));
  return [dt.getUTCFullYear(), dt.getUTCMonth() + 1, dt.getUTCDate()];
}

const DATE_PATTERNS: { re: RegExp; parse: (m: RegExpExecArray, now: Date) => [number, number, number] | null; timeAt: number }[] = [
  {
    // 2025-03-14, 2025-03-14T15:00:00Z (the ISO time is read by the time group)
    re: new RegExp(String.raw`\b(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::\d{2}(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?\b`, 'gi'),
    parse: (m) => [+m[1], +m[2], +m[3]],
    timeAt: -1,
  },
  {
    // March 14, 2025 / Mar 14th / Tuesday, March 14 (at 3pm)
    re: new RegExp(String.raw`\b(?:(?:mon|tue|tues|wed|thu|thurs|fri|sat|sun)[a-z]*,?\s+)?(${MONTH_RE})\.?\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?(?:,?\s+(?:at|@|um|à|a las)?\s*${TIME_SRC})?`, 'gi'),
    parse: (m, now) => {
      const mo = MONTHS[m[1].toLowerCase()];
      if (!mo) return null;
      const d = +m[2];
      const y = m[3] ? +m[3] : inferYear(mo, d, now);
      return [y, mo, d];
    },
    timeAt: 4,
  },
  {
    // 14 March 2025 / 14. März 2025 / 14 de marzo de 2025 / le 14 mars
    re: new RegExp(String.raw`\b(\d{1,2})(?:st|nd|rd|th|\.|er)?\s+(?:of\s+|de\s+)?(${MONTH_RE})\.?(?:,?\s+(?:de\s+)?(\d{4}))?(?:,?\s+(?:at|@|um|à|a las)?\s*${TIME_SRC})?`, 'gi'),
    parse: (m, now) => {
      const mo = MONTHS[m[2].toLowerCase()];
      if (!mo) return null;
      const d = +m[1];
      const y = m[3] ? +m[3] : inferYear(mo, d, now);
      return [y, mo, d];
    },
    timeAt: 4,
  },
  {
    // 03/14/2025 (US) or 14/03/2025 (day first when unambiguous), 14.03.2025 (European)
    re: new RegExp(String.raw`\b(\d{1,2})([/.])(\d{1,2})\2(\d{4}|\d{2})\b(?:,?\s+(?:at|@|um|à)?\s*${TIME_SRC})?`, 'gi'),
    parse: (m) => {
      let a = +m[1];
      let b = +m[3];
      let y = +m[4];
      if (m[4].length === 2) y += 2000;
      if (m[2] === '.') return [y, b, a]; // D.M.Y
      if (a > 12 && b <= 12) [a, b] = [b, a];
      return [y, a, b];
    },
    timeAt: 5,
  },
  {
    // today / tomorrow / tonight / next Tuesday / this Friday / on Monday (at 3pm)
    re: new RegExp(String.raw`\b(today|tonight|tomorrow|day after tomorrow|(?:(next|this|on|coming)\s+)?(monday|tuesday|wednesday|thursday|friday|saturday|sunday))\b(?:\s+(?:morning|afternoon|evening))?(?:,?\s+(?:at|@|around|by)?\s*${TIME_SRC})?`, 'gi'),
    parse: (m, now) => {
      const w = m[1].toLowerCase();
      if (w === 'today' || w === 'tonight') return addDays(now, 0);
      if (w === 'tomorrow') return addDays(now, 1);
      if (w === 'day after tomorrow') return addDays(now, 2);
      const target = WEEKDAYS[m[3].toLowerCase()];
      // the next such weekday after today ("next Tuesday" read the same way)
      let delta = (target - now.getUTCDay() + 7) % 7;
      if (delta === 0) delta = 7;
      return addDays(now, delta);
    },
    timeAt: 4,
  },
];

function extractDates(text: string, now: Date, out: { text: string; value: string; at: number }[]): void {
  const taken: Array<[number, number]> = [];
  const overlaps = (a: number, b: number) => taken.some(([x, y]) => a < y && b > x);
  for (const p of DATE_PATTERNS) {
    p.re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = p.re.exec(text)) !== null && out.length < MAX_PER_KIND) {
      const start = m.index;
      const end = start + m[0].length;
      if (m[0].length === 0) {
        p.re.lastIndex++;
        continue;
      }
      if (overlaps(start, end)) continue;
      const ymd = p.parse(m, now);
      if (!ymd || !validDate(ymd[0], ymd[1], ymd[2])) continue;
      let t: TimeParts | null = null;
      if (p.timeAt < 0) {
        if (m[4] !== undefined) {
          const tz = m[6] ? (m[6].toUpperCase() === 'Z' ? 'Z' : m[6].replace(/^([+-]\d{2}):?(\d{2})$/, '$1:$2')) : '';
          t = { h: +m[4], mi: +m[5], tz };
          if (t.h > 23 || t.mi > 59) t = null;
        }
      } else if (m.length > p.timeAt && m.slice(p.timeAt, p.timeAt + TIME_GROUPS).some((g) => g !== undefined)) {
        t = parseTime(m, p.timeAt);
      }
      taken.push([start, end]);
      out.push({ text: m[0].trim(), value: iso(ymd[0], ymd[1], ymd[2], t), at: start });
    }
  }
  // a bare time with a neighbouring date already covered is fine; a bare time
  // alone ("call me at 3pm") is reported as an ISO 8601 time of day
  const bare = new RegExp(String.raw`\b(?:at|@|by|around|from)\s+${TIME_SRC}`, 'gi');
  let m: RegExpExecArray | null;
  while ((m = bare.exec(text)) !== null && out.length < MAX_PER_KIND) {
    const start = m.index;
    const end = start + m[0].length;
    if (overlaps(start, end)) continue;
    const t = parseTime(m, 1);
    if (!t) continue;
    taken.push([start, end]);
    out.push({ text: m[0].replace(/^(at|@|by|around|from)\s+/i, '').trim(), value: `${pad(t.h)}:${pad(t.mi)}:00${t.tz}`, at: start });
  }
}

const CUR_SYMBOL: Record<string, string> = {
  $: 'USD', us$: 'USD', usd: 'USD', 'c$': 'CAD', 'a$': 'AUD', 'r$': 'BRL', '€': 'EUR', '£': 'GBP', '¥': 'JPY', '₹': 'INR', '₩': 'KRW', chf: 'CHF', fr: 'CHF',
  eur: 'EUR', gbp: 'GBP', jpy: 'JPY', cad: 'CAD', aud: 'AUD', inr: 'INR', cny: 'CNY', rmb: 'CNY', sek: 'SEK', nok: 'NOK', dkk: 'DKK', pln: 'PLN', brl: 'BRL', mxn: 'MXN', nzd: 'NZD', sgd: 'SGD', hkd: 'HKD', zar: 'ZAR',
  dollars: 'USD', dollar: 'USD', euros: 'EUR', euro: 'EUR', pounds: 'GBP', 'pounds sterling': 'GBP', yen: 'JPY', rupees: 'INR',
};
const NUM = String.raw`\d{1,3}(?:[,.\u00a0 ']\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
const MULT = String.raw`(?:\s?(k|m|mm|bn|million|billion|thousand))?`;
const MONEY_PRE = new RegExp(String.raw`(us\$|c\$|a\$|r\$|\$|€|£|¥|₹|₩|\b(?:usd|eur|gbp|jpy|cad|aud|chf|inr|cny|sek|nok|dkk|pln|brl|mxn|nzd|sgd|hkd|zar)\b)\s?(${NUM})${MULT}(?![\d%])`, 'gi');
const MONEY_POST = new RegExp(String.raw`(?<![\d$€£])(${NUM})${MULT}\s?(€|£|¥|\b(?:usd|eur|gbp|jpy|cad|aud|chf|inr|cny|sek|nok|dkk|pln|brl|mxn|nzd|sgd|hkd|zar|dollars?|euros?|pounds|yen|rupees)\b)`, 'gi');

function parseAmount(raw: string, mult: string | undefined): number | null {
  let s = raw.replace(/[\u00a0 ']/g, '');
  const lastDot = s.lastIndexOf('.');
  const lastComma = s.lastIndexOf(',');
  if (lastDot >= 0 && lastComma >= 0) {
    const dec = lastDot > lastComma ? '.' : ',';
    const thou = dec === '.' ? ',' : '.';
    s = s.split(thou).join('').replace(dec, '.');
  } else if (lastComma >= 0) {
    const after = s.length - lastComma - 1;
    s = after === 3 && s.indexOf(',') === lastComma && s.length > 4 ? s.replace(',', '') : after === 3 ? s.split(',').join('') : s.replace(',', '.');
    if ((s.match(/\./g)?.length ?? 0) > 1) return null;
  } else if (lastDot >= 0) {
    const after = s.length - lastDot - 1;
    const dots = s.split('.').length - 1;
    if (dots > 1 || after === 3) s = s.split('.').join('');
  }
  let v = Number(s);
  if (!Number.isFinite(v)) return null;
  const k = (mult ?? '').toLowerCase();
  if (k === 'k' || k === 'thousand') v *= 1e3;
  else if (k === 'm' || k === 'mm' || k === 'million') v *= 1e6;
  else if (k === 'bn' || k === 'billion') v *= 1e9;
  return Math.round(v * 100) / 100;
}

function extractMoney(text: string, out: { text: string; amount: number; currency: string }[]): void {
  const taken: Array<[number, number]> = [];
  for (const [re, numAt, curAt, multAt] of [
    [MONEY_PRE, 2, 1, 3],
    [MONEY_POST, 1, 3, 2],
  ] as const) {
    re.lastIndex = 0;
    let m: RegExpExecArray | null;
    while ((m = re.exec(text)) !== null && out.length < MAX_PER_KIND) {
      const a = m.index;
      const b = a + m[0].length;
      if (taken.some(([x, y]) => a < y && b > x)) continue;
      const cur = CUR_SYMBOL[m[curAt].toLowerCase()];
      const amount = parseAmount(m[numAt], m[multAt]);
      if (!cur || amount === null) continue;
      taken.push([a, b]);
      out.push({ text: m[0].trim(), amount, currency: cur });
    }
  }
}

const EMAIL_RE = /[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})*\.[a-z]{2,24}/gi;
// A URL ends at a control character too: "http://evil.example/\u0007click\u001b" is the URL
// "http://evil.example/", never a string that carries escapes to whoever prints it.
const URL_RE = /\b(?:https?:\/\/|www\.)[^\s<>"'`)\]}\u0000-\u001f\u007f-\u009f]{2,2000}/gi;
const PHONE_RE = /(?<![\w+])(\+|00)?(\(?\d{1,4}\)?(?:[\s.-]?\(?\d{1,4}\)?){2,6})(?![\w-])/g;
const PHONE_CTX = /\b(phone|tel|telephone|mobile|cell|call|fax|whatsapp|text me|ring|téléphone|telefon|teléfono|contact)\b|☎|📞/i;

function extractPhones(text: string, out: { text: string; e164: string }[]): void {
  PHONE_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PHONE_RE.exec(text)) !== null && out.length < MAX_PER_KIND) {
    const raw = m[0];
    let body = raw;
    const intl = !!m[1];
    if (intl) body = body.replace(/^(\+|00)/, '').replace(/\(0\)/, '');
    const digits = body.replace(/\D/g, '');
    if (digits.length < 7 || digits.length > 15) continue;
    const formatted = /[\s().-]/.test(raw.trim());
    if (/^\d{4}-\d{2}-\d{2}$/.test(raw.trim()) || /^\d{1,2}[./]\d{1,2}[./]\d{2,4}$/.test(raw.trim())) continue;
    const ctx = text.slice(Math.max(0, m.index - 40), m.index);
    if (intl) {
      if (digits.length < 8) continue;
      if (digits[0] === '0') continue;
      out.push({ text: raw.trim(), e164: '+' + digits });
      continue;
    }
    if (!formatted && !PHONE_CTX.test(ctx)) continue;
    if (/\b(order|invoice|tracking|ref|reference|account|case|ticket|#)\W{0,3}$/i.test(ctx)) continue;
    // North American numbers: (415) 555-0199, 415-555-0199, 1-415-555-0199
    if (digits.length === 10 && /^[2-9]\d{2}[2-9]/.test(digits) && /^\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4}$/.test(raw.trim())) {
      out.push({ text: raw.trim(), e164: '+1' + digits });
    } else if (digits.length === 11 && digits[0] === '1' && /^[2-9]/.test(digits.slice(1))) {
      out.push({ text: raw.trim(), e164: '+' + digits });
    }
    // national numbers of other countries need a country code we cannot know
  }
}

// One-time codes: a code-shaped token in the same sentence as, and within 50
// characters of, a word that announces one ("code", "OTP", "passcode",
// "to sign in", "enter", 認証, код, …). The token is matched case-sensitively (letters
// only upper case): 4–8 digits, 3+3 / 4+4 digit groups
// (123-456, 661 904, 5021 8837), Google's "G-123456" (the digits are kept),
// or 5–8 upper-case alphanumerics; 6–8 upper-case letters only right after
// "code is" / "code:". Promo, zip, error and similar codes are
// not one-time codes.
const CODE_KEY = /\b(?:codes?|otp|passcode|pin|tan|one[- ]time[- ](?:password|passcode|pin)|2fa|mfa|(?:to|on the) (?:sign|log)[- ]?in|enter|c[oó]digo|codice|kod|koden|verificatiecode|bestätigungscode|sicherheitscode|anmeldecode|einmalpasswort)\b|код|コード|验证码|校验码|確認番号/gi;
const NOT_OTP = /(?:promo|discount|coupon|voucher|zip|postal|post|area|error|status|source|country|dress|qr|bar|tracking|gift|referral|invite|invitation|reference|booking|exit|http|response)[\s-]*$/i;
const CODE_TOKEN = /(?<![\w$€£¥.,:/#-])(?:[A-Z]-)?(\d{3}[- ]\d{3}|\d{4}[ -]\d{4}|\d{4,8}|(?=[A-Z0-9]{0,7}\d)[A-Z0-9]{5,8}|[A-Z]{6,8})(?![\w-]|[.,]\d|%|:\d)/g;
/** Between a keyword and a letters-only code ("code is BGJRZB"): nothing but "is" or a colon. */
const CODE_GLUE = /^\s*(?:(?:is|ist|est|es|é|è|lautet)\s*)?(?::\s*)?$/i;
const SENTENCE_END = /[.!?。！？]\s|\n\s*\n|\n(?=\s*[-*•])/g;

function extractCodes(text: string, codes: string[]): void {
  CODE_KEY.lastIndex = 0;
  let k: RegExpExecArray | null;
  let seen = 0;
  while ((k = CODE_KEY.exec(text)) !== null && seen++ < 40 && codes.length < MAX_PER_KIND) {
    const ks = k.index;
    const ke = ks + k[0].length;
    if (NOT_OTP.test(text.slice(Math.max(0, ks - 24), ks))) continue;
    // the sentence around the keyword, at most 50 characters either side
    let from = Math.max(0, ks - 50);
    let to = Math.min(text.length, ke + 64); // a token must start within 50; it may end later
    SENTENCE_END.lastIndex = from;
    let e: RegExpExecArray | null;
    while ((e = SENTENCE_END.exec(text)) !== null && e.index < to) {
      const after = e.index + e[0].length;
      if (e.index < ks) from = Math.max(from, after);
      else if (e.index >= ke) {
        to = e.index;
        break;
      }
    }
    let best: string | null = null;
    let bestDist = Infinity;
    CODE_TOKEN.lastIndex = 0;
    const seg = text.slice(from, to);
    let t: RegExpExecArray | null;
    while ((t = CODE_TOKEN.exec(seg)) !== null) {
      const a = from + t.index;
      const b = a + t[0].length;
      if ((a < ke && b > ks) || a > ke + 50) continue; // inside the keyword itself, or too far
      const c = t[1];
      if (/^(19|20)\d{2}$/.test(c)) continue;
      // letters-only codes exist, but so do upper-case words: only right after the keyword
      if (!/\d/.test(c) && !(a >= ke && CODE_GLUE.test(text.slice(ke, a)))) continue;
      const dist = a >= ke ? a - ke : ks - b + 5; // a code after its keyword wins a near tie
      if (dist < bestDist) {
        bestDist = dist;
        best = c;
      }
    }
    if (best) pushUnique(codes, best);
  }
}

const ORDER_RE = /\b(?:order|purchase order|po|bestellung|bestellnummer|commande|pedido|ordine|encomenda)\s*(?:(?:number|no\.?|num\.?|nr\.?|n°|nº|n\.º|id|#|número)\s*)?(?:[:#]\s*)?(?:#\s*)?((?=[A-Z0-9-]{0,24}\d)[A-Z0-9][A-Z0-9-]{3,24})\b/gi;
const TRACK_CTX_RE = /\b(?:tracking|track(?:ing)?\s*(?:number|no\.?|#|id|code)|sendungsnummer|numéro de suivi|número de seguimiento|waybill|awb)\s*(?:(?:number|no\.?|#|id|code)\s*)?(?:[:#]\s*)?([A-Z0-9]{8,34})\b/gi;
const TRACK_PATTERNS = [/\b1Z[0-9A-Z]{16}\b/g, /\b9[1-5]\d{20}\b/g, /\b[A-Z]{2}\d{9}[A-Z]{2}\b/g];

function pushUnique(arr: string[], v: string): void {
  if (arr.length < MAX_PER_KIND && !arr.includes(v)) arr.push(v);
}

const NOT_NAMES = new Set(['team', 'all', 'everyone', 'sir', 'madam', 'there', 'customer', 'support', 'friend', 'folks', 'guys', 'user', 'valued', 'member', 'hello', 'hi', 'thanks', 'regards', 'best', 'the', 'dear', 'sales', 'admin', 'billing', 'info', 'no', 'noreply', 'mr', 'mrs', 'ms', 'dr']);
const NAME_WORD = String.raw`[A-Z\u00C0-\u00DE][a-z\u00DF-\u00FF'’-]{1,20}`;
const GREETING_RE = new RegExp(String.raw`(?:^|\n)\s*(?:hi|hello|hey|dear|hallo|bonjour|hola|olá|ciao|hoi|guten tag)\s+((?:${NAME_WORD})(?:\s+${NAME_WORD})?)\s*[,!:\n]`, 'gi');
const LONG_BLANK_TEST = /\s{65}/;
const LONG_BLANK = /\s{65,}/g;
const SIGNOFF_RE = new RegExp(String.raw`(?:^|\n)\s*(?:best|best regards|kind regards|regards|warm regards|cheers|thanks|thank you|many thanks|sincerely|yours|talk soon|see you then|viele grüße|beste grüße|mit freundlichen grüßen|cordialement|bien à vous|saludos|un saludo|abraço|cordiali saluti|groet)\s*[,!.]?\s*\n\s*(${NAME_WORD}(?:\s+${NAME_WORD}){0,2})\s*(?:\n|$)`, 'gi');
const ORG_RE = /\b((?:[A-Z][\w&'-]*|&)(?:[ \t]+(?:[A-Z][\w&'-]*|&|of|de)){0,3})[ \t]+(Inc\.?|Incorporated|LLC|L\.L\.C\.|Ltd\.?|Limited|GmbH|AG|S\.A\.|SAS|SARL|B\.V\.|BV|N\.V\.|Corp\.?|Corporation|Co\.|PLC|plc|Pty\.? Ltd\.?|LLP|S\.r\.l\.|Srl|KG|Oy|AB|ASA)(?![\w])/g;

function isPersonName(s: string): boolean {
  const words = s.trim().split(/\s+/);
  if (words.length === 0 || words.length > 3) return false;
  return words.every((w) => /^\p{Lu}[\p{Ll}'’-]+$/u.test(w) && !NOT_NAMES.has(w.toLowerCase()));
}

/**
 * `href` targets of the HTML body (http/https only), in document order. HTML-only mail often
 * shows "Verify your address" with the link only in the attribute, so the text has no URL.
 * A linear attribute scan over a bounded input: no HTML parser, no backtracking.
 */
export function hrefLinks(html: string, max = MAX_PER_KIND): string[] {
  const out: string[] = [];
  const re = /\bhref\s*=\s*(?:"([^"]{1,2000})"|'([^']{1,2000})'|([^\s>"']{1,2000}))/gi;
  let m: RegExpExecArray | null;
  while ((m = re.exec(html.slice(0, 256 * 1024))) !== null && out.length < max) {
    const url = (m[1] ?? m[2] ?? m[3]).trim().replace(/&amp;/gi, '&');
    if (/^https?:\/\/[^\s\u0000-\u001f\u007f-\u009f]+$/i.test(url)) pushUnique(out, url);
  }
  return out;
}

export function extractEntities(text: string, fromName: string | null | undefined, now: Date, html?: string | null): Entities {
  const e: Entities = {};
  const dates: { text: string; value: string; at: number }[] = [];
  extractDates(text, now, dates);
  // One entry per moment: "Friday" in the subject and again in the body is one date.
  if (dates.length) e.dates = dates.sort((a, b) => a.at - b.at).filter((d, i, all) => all.findIndex((x) => x.value === d.value) === i).map(({ text: t, value }) => ({ text: t, value }));

  const money: { text: string; amount: number; currency: string }[] = [];
  extractMoney(text, money);
  if (money.length) e.money = money;

  const emails: string[] = [];
  const rawEmails: string[] = [];
  // anchor on '@' instead of trying the address pattern at every position
  for (let at = text.indexOf('@'); at >= 0 && emails.length < MAX_PER_KIND; at = text.indexOf('@', at + 1)) {
    EMAIL_RE.lastIndex = 0;
    const seg = text.slice(Math.max(0, at - 64), at + 256);
    let m: RegExpExecArray | null;
    while ((m = EMAIL_RE.exec(seg)) !== null) {
      if (Math.max(0, at - 64) + m.index + m[0].indexOf('@') === at) {
        const i = m[0].lastIndexOf('@');
        pushUnique(emails, m[0].slice(0, i) + '@' + m[0].slice(i + 1).toLowerCase());
        rawEmails.push(m[0]);
        break;
      }
    }
  }
  if (emails.length) e.emails = emails;

  const urls: string[] = [];
  for (const m of text.match(URL_RE) ?? []) pushUnique(urls, m.replace(/[.,;:!?]+$/, ''));
  if (html) for (const h of hrefLinks(html)) if (urls.length < MAX_PER_KIND) pushUnique(urls, h);
  if (urls.length) e.urls = urls;

  // phones: skip URLs and emails so their digits are not read as numbers
  const phones: { text: string; e164: string }[] = [];
  let phoneText = urls.length ? text.replace(URL_RE, ' ') : text;
  for (const raw of rawEmails) phoneText = phoneText.split(raw).join(' ');
  extractPhones(phoneText, phones);
  const uniqPhones = phones.filter((p, i) => phones.findIndex((q) => q.e164 === p.e164) === i);
  if (uniqPhones.length) e.phones = uniqPhones;

  const codes: string[] = [];
  extractCodes(text, codes);
  if (codes.length) e.codes = codes;

  const orders: string[] = [];
  ORDER_RE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = ORDER_RE.exec(text)) !== null) {
    if (/^(19|20)\d{2}$/.test(m[1])) continue;
    pushUnique(orders, m[1]);
  }
  if (orders.length) e.order_numbers = orders;

  const tracking: string[] = [];
  TRACK_CTX_RE.lastIndex = 0;
  while ((m = TRACK_CTX_RE.exec(text)) !== null) if (/\d/.test(m[1])) pushUnique(tracking, m[1]);
  for (const re of TRACK_PATTERNS) for (const t of text.match(re) ?? []) pushUnique(tracking, t);
  if (tracking.length) e.tracking_numbers = tracking;

  const people: string[] = [];
  if (fromName && isPersonName(fromName.replace(/^["']|["']$/g, ''))) pushUnique(people, fromName.replace(/^["']|["']$/g, '').trim());
  // GREETING_RE and SIGNOFF_RE try every line end of a run of blank lines (quadratic: 8 KB of
  // blank lines after a word cost ~0.5 s): a whitespace run of over 64 characters that holds a line
  // end is read as one blank line by them (session 13; ordinary mail has none).
  const names = LONG_BLANK_TEST.test(text) ? text.replace(LONG_BLANK, (w) => (w.includes('\n') ? '\n\n' : w)) : text;
  for (const re of [GREETING_RE, SIGNOFF_RE]) {
    re.lastIndex = 0;
    while ((m = re.exec(names)) !== null) {
      const n = m[1].trim();
      if (isPersonName(n)) pushUnique(people, n);
    }
  }
  if (people.length) e.people = people;

  const orgs: string[] = [];
  ORG_RE.lastIndex = 0;
  while ((m = ORG_RE.exec(text)) !== null) {
    const base = m[1].replace(/^(?:(?:The|At|From|With|And|Of|By|For|To|In|On|Dear|Hi|Thanks)\s+)+/, '');
    if (!/^[A-Z]/.test(base)) continue;
    pushUnique(orgs, `${base} ${m[2]}`.trim());
  }
  if (orgs.length) e.organizations = orgs;
  return e;
}
