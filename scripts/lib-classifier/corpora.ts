// Task datasets built from ../shared/data and scripts/classifier-data.
// Every example carries its source and split group; dedupAndSplit() in
// data.ts decides train vs eval, once, for both scripts.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { dataDir, ownDataDir, readTarGz, parseMail, readJsonl, readCsv, fnv1a, dedupKey, type Example } from './data.js';
import { htmlToText } from '../../src/classifier/text.js';

const p = (...a: string[]) => path.join(dataDir, ...a);
const MAX_BODY = 6000;

function clip(s: string, n = MAX_BODY): string {
  return s.length > n ? s.slice(0, n) : s;
}

let enronSpamCache: Example[] | null = null;
/** enron-spam: subject + body, label 1 = spam. Group = content (dedup key). */
export function enronSpam(): Example[] {
  if (enronSpamCache) return enronSpamCache;
  const out: Example[] = [];
  for (const e of readTarGz(p('enron-spam', 'messages.tar.gz'))) {
    const m = /enron(\d)\/(ham|spam)\/([^/]+)$/.exec(e.name);
    if (!m) continue;
    const raw = e.data.toString('latin1');
    const nl = raw.indexOf('\n');
    const first = nl >= 0 ? raw.slice(0, nl) : raw;
    const subject = first.replace(/^subject:\s*/i, '');
    const body = clip(nl >= 0 ? raw.slice(nl + 1) : '');
    out.push({ text: body, subject, label: m[2] === 'spam' ? 1 : 0, source: `enron-spam/enron${m[1]}`, group: dedupKey(subject + ' ' + body) });
  }
  enronSpamCache = out;
  return out;
}

let saCache: Example[] | null = null;
/** SpamAssassin: parsed RFC 822, label 1 = spam. */
export function spamAssassin(): Example[] {
  if (saCache) return saCache;
  const out: Example[] = [];
  for (const e of readTarGz(p('spamassassin', 'messages.tar.gz'))) {
    const m = /(easy-ham-\d|hard-ham-\d|spam-\d)\/([^/]+)$/.exec(e.name);
    if (!m) continue;
    const mail = parseMail(e.data.toString('latin1'));
    let text = mail.text;
    if (mail.html && text.length < 40) text = htmlToText(mail.html).visible;
    out.push({
      text: clip(text),
      subject: mail.subject,
      label: m[1].startsWith('spam') ? 1 : 0,
      source: `spamassassin/${m[1]}`,
      group: dedupKey(mail.subject + ' ' + text),
      meta: { headers: mail.headers, from: mail.from, html: mail.html ? clip(mail.html, 60000) : '' },
    });
  }
  saCache = out;
  return out;
}

/** Parakweet: sentence-level "is this a request" (Yes/No). */
export function parakweet(): Example[] {
  const out: Example[] = [];
  for (const line of readFileSync(p('parakweet-email-intent', 'train_Ask0729-fixed.tsv'), 'utf8').split('\n')) {
    const tab = line.indexOf('\t');
    if (tab < 0) continue;
    const lab = line.slice(0, tab).trim();
    const text = line.slice(tab + 1).trim();
    if (!text || (lab !== 'Yes' && lab !== 'No')) continue;
    out.push({ text, label: lab === 'Yes' ? 1 : 0, source: 'parakweet', group: dedupKey(text) });
  }
  return out;
}

/** Enron Berkeley annotated subset: raw message + coarse genre labels. */
export function berkeley(): Example[] {
  const entries = readTarGz(p('enron-berkeley-categories', 'messages.tar.gz'));
  const cats = new Map<string, string[]>();
  for (const e of entries) if (e.name.endsWith('.cats')) cats.set(e.name.replace(/\.cats$/, ''), e.data.toString('latin1').split('\n').map((l) => l.split(',').slice(0, 2).join('.')).filter(Boolean));
  const out: Example[] = [];
  for (const e of entries) {
    if (!e.name.endsWith('.txt') || e.name.endsWith('categories.txt')) continue;
    const mail = parseMail(e.data.toString('latin1'));
    const labels = cats.get(e.name.replace(/\.txt$/, '')) ?? [];
    out.push({ text: clip(mail.text), subject: mail.subject, label: 0, source: 'enron-berkeley', group: dedupKey(mail.subject + ' ' + mail.text), meta: { cats: labels, from: mail.from } });
  }
  return out;
}

export interface ColdRecord { id: string; group: string; label: 0 | 1; kind: string; lang: string; subject: string; text: string; isReply: boolean; to: number }
export function coldOwn(): { ex: Example; rec: ColdRecord }[] {
  return readJsonl<ColdRecord>(path.join(ownDataDir, 'cold-outreach.jsonl')).map((r) => ({
    rec: r,
    ex: { text: r.text, subject: r.subject, label: r.label, source: `own/cold/${r.kind}`, group: r.group, meta: { isReply: r.isReply, to: r.to, kind: r.kind, lang: r.lang } },
  }));
}

export interface InjRecord { id: string; group: string; label: 0 | 1; placement: string; subject: string; text: string; html?: string }
export function injectionOwn(): InjRecord[] {
  return readJsonl<InjRecord>(path.join(ownDataDir, 'injection-emails.jsonl'));
}

export interface ShortRecord { id: string; group: string; label: 0 | 1; kind: string; lang: string; subject: string; text: string }
/** Own short emails (scripts/classifier-data/generate-short.ts): codes, notices, one-line replies; a few short attacks. */
export function shortOwn(): { ex: Example; rec: ShortRecord }[] {
  return readJsonl<ShortRecord>(path.join(ownDataDir, 'short-emails.jsonl')).map((r) => ({
    rec: r,
    ex: { text: r.text, subject: r.subject, label: r.label, source: `own/short/${r.kind}`, group: r.group, meta: { email: true, kind: r.kind, lang: r.lang } },
  }));
}

/** BIPIA attack categories that instruct the reading model (the first five are plain tasks, not attacks on an email agent). */
const BIPIA_PLAIN = new Set(['Information Retrieval', 'Content Creation', 'Learning and Tutoring', 'Language Translation', 'Programming Help']);

/**
 * Injection task. Positives: deepset label 1, tensor-trust attacks,
 * jailbreak prompts, BIPIA attacks embedded in BIPIA emails, own email
 * attacks. Negatives: deepset label 0, awesome-chatgpt-prompts, BIPIA and
 * llmail emails, enron/spamassassin ham, own tricky benign emails.
 * `meta.email` marks negatives that are real email (for the 1%-FPR metric).
 */
export function injectionTask(): Example[] {
  const out: Example[] = [];
  for (const r of readJsonl<{ text: string; label: number }>(p('deepset-prompt-injections', 'train.jsonl')))
    out.push({ text: r.text, label: r.label, source: 'deepset', group: dedupKey(r.text) });
  for (const f of ['hijacking_robustness_dataset.jsonl', 'extraction_robustness_dataset.jsonl']) {
    for (const r of readJsonl<{ attack: string }>(p('tensor-trust', f))) if (r.attack && r.attack.trim().length > 3) out.push({ text: clip(r.attack, 4000), label: 1, source: 'tensor-trust', group: dedupKey(r.attack) });
  }
  for (const r of readCsv(p('jailbreak-llms', 'jailbreak_prompts_2023_12_25.csv'))) if (r.prompt) out.push({ text: clip(r.prompt, 4000), label: 1, source: 'jailbreak-llms', group: dedupKey(r.prompt) });
  for (const r of readCsv(p('awesome-chatgpt-prompts', 'prompts.csv'))) if (r.prompt) out.push({ text: clip(r.prompt, 4000), label: 0, source: 'awesome-chatgpt-prompts', group: dedupKey(r.prompt) });

  // BIPIA: benign email contexts, and attacks embedded in them
  const bipiaEmails = readJsonl<{ context: string }>(p('bipia', 'email_train.jsonl')).map((r) => r.context.replace(/\|/g, '\n'));
  for (const c of bipiaEmails) out.push({ text: clip(c), label: 0, source: 'bipia/email', group: dedupKey(c), meta: { email: true } });
  const attacks: string[] = [];
  const text = JSON.parse(readFileSync(p('bipia', 'text_attack_train.json'), 'utf8')) as Record<string, string[]>;
  for (const [k, v] of Object.entries(text)) if (!BIPIA_PLAIN.has(k)) attacks.push(...v);
  const code = JSON.parse(readFileSync(p('bipia', 'code_attack_train.json'), 'utf8')) as Record<string, string[]>;
  for (const v of Object.values(code)) attacks.push(...v);
  for (const a of attacks) {
    const host = bipiaEmails[fnv1a(a) % bipiaEmails.length];
    const cut = host.lastIndexOf(' ', Math.floor(host.length * ((fnv1a(a, 7) % 100) / 100)));
    const at = cut < 0 ? host.length : cut;
    const embedded = host.slice(0, at) + ' ' + a + ' ' + host.slice(at);
    out.push({ text: clip(embedded), label: 1, source: 'bipia/attack-in-email', group: dedupKey(a), meta: { email: true, attack: a } });
  }
  for (const f of ['fp_tests', 'level1', 'level2', 'level3', 'level4']) {
    const d = JSON.parse(readFileSync(p('llmail-inject-emails', f + '.json'), 'utf8')) as { emails: string[] };
    for (const e of d.emails) out.push({ text: e, label: 0, source: `llmail/${f}`, group: dedupKey(e), meta: { email: true } });
  }
  for (const r of injectionOwn()) {
    out.push({ text: r.text, subject: r.subject, label: r.label, source: `own/injection/${r.label ? r.placement : 'benign'}`, group: r.group, meta: { email: true, html: r.html ?? '' } });
  }
  // short mail (codes, notices, replies): without it the model met short
  // texts almost only as attack prompts
  for (const { ex } of shortOwn()) out.push(ex);
  // ham email bodies (a sample: most of the benign mass)
  const ham = enronSpam().filter((x) => x.label === 0);
  for (let i = 0; i < ham.length; i += 4) out.push({ ...ham[i], source: 'enron-ham', meta: { email: true } });
  const sa = spamAssassin().filter((x) => x.label === 0);
  for (let i = 0; i < sa.length; i += 2) out.push({ ...sa[i], label: 0, source: 'spamassassin-ham', meta: { ...sa[i].meta, email: true } });
  // spam is not injection: a sample teaches the model that "click here now" is not an attack
  const spam = enronSpam().filter((x) => x.label === 1);
  for (let i = 0; i < spam.length; i += 12) out.push({ ...spam[i], label: 0, source: 'enron-spam-as-benign', meta: { email: true } });
  return out;
}

/** Spam/bulk task: enron-spam + spamassassin. */
export function spamTask(): Example[] {
  return [...enronSpam(), ...spamAssassin()];
}

export interface ColdStyleRecord { id: string; group: string; style: string; label: 0 | 1; kind: string; lang: string; subject: string; text: string; isReply: boolean; to: number;
  /** '2.1': a style added in classifier 2.1 (the 2.0 cold recipe does not train on it) */
  since?: string;
  /** a fresh-check style: 2.6's (written after the screen rules of 2.6 were final, scored once; trains since), 2.13's (never trains) */
  check?: true;
}
/** `since` (a classifier version: '2.6', '2.13') is at most `v`, compared part by part ('2.13' is after '2.6'); no `since` = '2.0'. */
export function sinceAtMost(since: string | undefined, v: string): boolean {
  const a = (since ?? '2.0').split('.').map(Number);
  const b = v.split('.').map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return true;
}
/** 2.13's fresh check: a test set only in 2.13 (docs/classifier.md, 2.13); scored once there, it trains from 2.14 on. */
export function isFreshCheck13(rec: ColdStyleRecord): boolean {
  return rec.check === true && !sinceAtMost(rec.since, '2.12') && sinceAtMost(rec.since, '2.13');
}
/** 2.14's fresh check: a test set only, never in a training set (docs/classifier.md, 2.14). */
export function isFreshCheck14(rec: ColdStyleRecord): boolean {
  return rec.check === true && !sinceAtMost(rec.since, '2.13');
}
/**
 * Whether a style-set record trains the cold model of the style set as of `upTo`: 2.6's fresh check
 * trains from 2.6 on, 2.13's from 2.14 on (each after its one scoring), 2.14's never.
 */
export function checkTrains(rec: ColdStyleRecord, upTo: string): boolean {
  if (isFreshCheck14(rec)) return false;
  if (isFreshCheck13(rec)) return !sinceAtMost(upTo, '2.13');
  return true;
}
/** Own hand-written pitches and transactional mail by style (generate-cold-styles.ts), for leave-one-style-out. */
export function coldStyles(): { ex: Example; rec: ColdStyleRecord }[] {
  return readJsonl<ColdStyleRecord>(path.join(ownDataDir, 'cold-styles.jsonl')).map((r) => ({
    rec: r,
    ex: { text: r.text, subject: r.subject, label: r.label, source: `own/cold-style/${r.style}`, group: r.group, meta: { isReply: r.isReply, to: r.to, kind: r.kind, lang: r.lang, style: r.style } },
  }));
}
