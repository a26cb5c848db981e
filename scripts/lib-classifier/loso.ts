// The injection data of issue #12, organised for leave-one-source-out:
//   - attack SOURCES (the folds): deepset, tensor-trust, jailbreak-llms,
//     bipia, and our own written sets as one more source;
//   - benign payloads (prompts, request sentences, trigger-word sentences,
//     agent tasks) that are embedded in mail exactly like attacks, so that
//     "something was inserted" is not the signal;
//   - benign messages (real ham, short mail, llmail carrier emails, …);
//   - HOSTS: real ham (Enron, SpamAssassin), split by content hash into a
//     training side and an evaluation side that never meet.
// Everything is deterministic (seeded hashes), so both scripts agree.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { dataDir, ownDataDir, readCsv, readJsonl, fnv1a, dedupKey, isEval } from './data.js';
import { enronSpam, spamAssassin, shortOwn, injectionOwn, parakweet, coldOwn, coldStyles, sinceAtMost } from './corpora.js';

const p = (...a: string[]) => path.join(dataDir, ...a);

export interface Payload {
  text: string;
  group: string;
  source: string;
  label: 0 | 1;
  kind: string;
  /** from output-goals.jsonl (classifier 2.1's data; the 2.0 recipe never trains on it) */
  extra?: boolean;
}

export interface Msg {
  subject: string;
  text: string;
  html: string;
  label: 0 | 1;
  source: string;
  kind: string;
  group: string;
  /** the inserted text (attack or benign counterpart), for labelling windows */
  payload?: string;
  /** data added in classifier 2.1 (the 2.0 recipe never trains on it) */
  extra?: boolean;
  position?: Position;
}

export const POSITIONS = ['start', 'middle', 'end', 'after-signature', 'quoted', 'hidden-html'] as const;
export type Position = (typeof POSITIONS)[number];

export const ATTACK_SOURCES = ['deepset', 'tensor-trust', 'jailbreak-llms', 'bipia', 'own'] as const;
export type AttackSource = (typeof ATTACK_SOURCES)[number];

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

interface GoalRec { group: string; label: 0 | 1; kind: string; action?: string; text: string }
export function goalSets(): GoalRec[] {
  return readJsonl<GoalRec>(path.join(ownDataDir, 'goal-sets.jsonl'));
}
/** Output-manipulation goals and their human-addressed counterparts (classifier 2.1; see generate-output-goals.ts). */
export function outputGoals(): GoalRec[] {
  return readJsonl<GoalRec>(path.join(ownDataDir, 'output-goals.jsonl'));
}

/**
 * Attacks on the assistant that processes the mail, and their benign
 * counterparts (classifier 2.8; see generate-assistant-goals.ts). TRAINING
 * data only: neither attackSources() nor benignPayloads() return it, so the
 * leave-one-source-out positives and negatives stay those of 2.7; it counts
 * as the own source (a fold that holds out `own` does not train on it).
 */
export function assistantGoals(): Payload[] {
  return readJsonl<GoalRec>(path.join(ownDataDir, 'assistant-goals.jsonl')).map((r) => ({ text: r.text, group: r.group, source: r.label ? 'own' : `own-benign/${r.kind}`, label: r.label, kind: r.label ? `goal/${r.action}` : r.kind }));
}

/**
 * Overrides, task hijacks, dictated output and exfiltration in German, French, Spanish, Italian and
 * Portuguese, and benign counterparts in the same languages with the same verbs (classifier 2.11; see
 * generate-multilingual-goals.ts). TRAINING data only, like assistantGoals(); the own source.
 */
export function multilingualGoals(): Payload[] {
  return readJsonl<GoalRec>(path.join(ownDataDir, 'multilingual-goals.jsonl')).map((r) => ({ text: r.text, group: r.group, source: r.label ? 'own' : `own-benign/${r.kind}`, label: r.label, kind: r.label ? `goal/${r.action}` : r.kind }));
}

/** BIPIA attack categories that instruct the reading model (the first five are plain tasks, not attacks). */
const BIPIA_PLAIN = new Set(['Information Retrieval', 'Content Creation', 'Learning and Tutoring', 'Language Translation', 'Programming Help']);

let attackCache: Map<AttackSource, Payload[]> | null = null;
/** Attack payloads per source (deduplicated across sources, first wins). */
export function attackSources(): Map<AttackSource, Payload[]> {
  if (attackCache) return attackCache;
  const m = new Map<AttackSource, Payload[]>();
  const seen = new Set<string>();
  const add = (src: AttackSource, text: string, kind: string, group?: string, extra?: boolean) => {
    const t = text.trim();
    if (t.length < 8) return;
    const k = dedupKey(t);
    if (!k || seen.has(k)) return;
    seen.add(k);
    const arr = m.get(src) ?? [];
    arr.push({ text: clip(t, 3000), group: group ?? k, source: src, label: 1, kind, ...(extra ? { extra } : {}) });
    m.set(src, arr);
  };
  for (const r of readJsonl<{ text: string; label: number }>(p('deepset-prompt-injections', 'train.jsonl'))) if (r.label === 1) add('deepset', r.text, 'prompt');
  for (const f of ['hijacking_robustness_dataset.jsonl', 'extraction_robustness_dataset.jsonl'])
    for (const r of readJsonl<{ attack: string }>(p('tensor-trust', f))) if (r.attack) add('tensor-trust', r.attack, f.startsWith('hij') ? 'hijacking' : 'extraction');
  for (const r of readCsv(p('jailbreak-llms', 'jailbreak_prompts_2023_12_25.csv'))) if (r.prompt) add('jailbreak-llms', r.prompt, 'jailbreak');
  const text = JSON.parse(readFileSync(p('bipia', 'text_attack_train.json'), 'utf8')) as Record<string, string[]>;
  for (const [k, v] of Object.entries(text)) if (!BIPIA_PLAIN.has(k)) for (const a of v) add('bipia', a, 'text-attack');
  const code = JSON.parse(readFileSync(p('bipia', 'code_attack_train.json'), 'utf8')) as Record<string, string[]>;
  for (const v of Object.values(code)) for (const a of v) add('bipia', a, 'code-attack');
  for (const r of goalSets()) if (r.label === 1) add('own', r.text, `goal/${r.action}`, r.group);
  for (const { ex } of shortOwn()) if (ex.label === 1) add('own', (ex.subject ? ex.subject + '\n' : '') + ex.text, 'short', ex.group);
  for (const r of outputGoals()) if (r.label === 1) add('own', r.text, `goal/${r.action}`, r.group, true);
  attackCache = m;
  return m;
}

/** Our hand-written attack emails (already embedded, some in HTML): own-source messages as written. */
export function ownAttackEmails(): Msg[] {
  return injectionOwn()
    .filter((r) => r.label === 1)
    .map((r) => ({ subject: r.subject, text: r.text, html: r.html ?? '', label: 1 as const, source: 'own', kind: `email/${r.placement}`, group: r.group }));
}

let benignPayloadCache: Payload[] | null = null;
/** Benign texts that are inserted into mail the same way as attacks. */
export function benignPayloads(): Payload[] {
  if (benignPayloadCache) return benignPayloadCache;
  const out: Payload[] = [];
  const push = (text: string, source: string, kind: string, group?: string, extra?: boolean) => {
    const t = text.trim();
    if (t.length >= 8) out.push({ text: clip(t, 3000), group: group ?? dedupKey(t), source, label: 0, kind, ...(extra ? { extra } : {}) });
  };
  for (const r of readJsonl<{ text: string; label: number }>(p('deepset-prompt-injections', 'train.jsonl'))) if (r.label === 0) push(r.text, 'deepset-benign', 'prompt');
  for (const r of readCsv(p('awesome-chatgpt-prompts', 'prompts.csv'))) if (r.prompt) push(r.prompt, 'awesome-chatgpt-prompts', 'prompt');
  const pk = parakweet();
  for (let i = 0; i < pk.length; i += 3) push(pk[i].text, 'parakweet', pk[i].label ? 'request-sentence' : 'sentence');
  for (const r of goalSets()) if (r.label === 0) push(r.text, `own-benign/${r.kind}`, r.kind, r.group);
  for (const r of outputGoals()) if (r.label === 0) push(r.text, `own-benign/${r.kind}`, r.kind, r.group, true);
  const bt = JSON.parse(readFileSync(p('bipia', 'text_attack_train.json'), 'utf8')) as Record<string, string[]>;
  for (const [k, v] of Object.entries(bt)) if (BIPIA_PLAIN.has(k)) for (const a of v) push(a, 'bipia-plain-task', 'task');
  benignPayloadCache = out;
  return out;
}

/**
 * Benign text that real mail hides (classifier 2.4, hidden-benign.jsonl):
 * marketing and transactional pre-headers, "view in browser" and delivery
 * boilerplate, tracking and accessibility text, email-builder comments.
 * Kept out of benignPayloads() so the 2.2/2.3 recipes and the shared
 * negatives of the leave-one-source-out table stay what they were; the
 * recipe option `hiddenBenign` trains on the train side hidden in host mail
 * exactly as attacks are hidden, and hiddenBenignEval() tests the eval side.
 */
export function hiddenBenignPayloads(): Payload[] {
  return readJsonl<{ group: string; kind: string; text: string }>(path.join(ownDataDir, 'hidden-benign.jsonl')).map((r) => ({ text: r.text, group: r.group, source: `own-hidden-benign/${r.kind}`, label: 0 as const, kind: r.kind }));
}

/**
 * A benign hidden fragment in two host emails: as a pre-header (hidden at the
 * top of the HTML body, where senders put it) and hidden at the end by
 * embed() — the code and hiding techniques that hide attacks.
 */
export function hiddenTwice(H: readonly Host[], x: Payload, salt: number): Msg[] {
  const a = embed(pickHost(H, x.text + '#0', salt), x, 'hidden-html', salt);
  const top = a.html.replace(/<body>([\s\S]*)\n(<(?:div|span|!--)[\s\S]*)<\/body>/, '<body>$2\n$1</body>');
  return [{ ...a, html: top }, embed(pickHost(H, x.text + '#1', salt), x, 'hidden-html', salt + 1)];
}

/** Real HTML ham (SpamAssassin) with its HTML: template comments, pre-headers and boilerplate hidden as real senders hide them. */
export function htmlHam(): Msg[] {
  const out: Msg[] = [];
  for (const e of spamAssassin()) {
    const html = String((e.meta as { html?: string } | undefined)?.html ?? '');
    if (e.label !== 0 || !html) continue;
    out.push({ subject: e.subject ?? '', text: e.text, html, label: 0, source: 'spamassassin-html-ham', kind: 'html-ham', group: e.group });
  }
  return out;
}

/**
 * The benign hidden-text test (2.4): the eval side of hidden-benign.jsonl,
 * each hidden in held-out host mail by every hiding technique of embed(),
 * and the eval side of the real HTML ham. Not part of the shared negatives
 * (the table stays comparable with 2.2's); reported beside it.
 */
export function hiddenBenignEval(): Msg[] {
  const EH = hosts().eval;
  const out: Msg[] = [];
  for (const x of hiddenBenignPayloads().filter((b) => isEval(b.group))) out.push(...hiddenTwice(EH, x, 13));
  out.push(...htmlHam().filter((m) => isEval(m.group)));
  return out;
}

export interface Host {
  subject: string;
  text: string;
  group: string;
  source: string;
}

let hostCache: { train: Host[]; eval: Host[] } | null = null;
/** Real ham as host mail (200–6,000 characters of body), split by content hash. */
export function hosts(): { train: Host[]; eval: Host[] } {
  if (hostCache) return hostCache;
  const train: Host[] = [];
  const ev: Host[] = [];
  const seen = new Set<string>();
  for (const e of [...enronSpam(), ...spamAssassin()]) {
    if (e.label !== 0) continue;
    const t = e.text.trim();
    if (t.length < 200 || t.length > 6000) continue;
    if (seen.has(e.group)) continue;
    seen.add(e.group);
    const h = { subject: e.subject ?? '', text: t, group: e.group, source: e.source.startsWith('enron') ? 'enron-ham' : 'spamassassin-ham' };
    (isEval(h.group) ? ev : train).push(h);
  }
  hostCache = { train, eval: ev };
  return hostCache;
}

/** Benign whole messages (not inserted anywhere). */
export function benignMessages(): Msg[] {
  const out: Msg[] = [];
  const msg = (subject: string, text: string, html: string, source: string, kind: string, group: string): Msg => ({ subject, text, html, label: 0, source, kind, group });
  const { train, eval: ev } = hosts();
  for (const h of [...train, ...ev]) out.push(msg(h.subject, h.text, '', h.source, 'ham', h.group));
  for (const { ex } of shortOwn()) if (ex.label === 0) out.push(msg(ex.subject ?? '', ex.text, '', 'own-short', String(ex.meta?.kind ?? 'short'), ex.group));
  for (const f of ['fp_tests', 'level1', 'level2', 'level3', 'level4']) {
    const d = JSON.parse(readFileSync(p('llmail-inject-emails', f + '.json'), 'utf8')) as { emails: string[] };
    for (const e of d.emails) out.push(msg('', e, '', 'llmail-inject-emails', f, dedupKey(e)));
  }
  for (const r of readJsonl<{ context: string }>(p('bipia', 'email_train.jsonl'))) {
    const c = r.context.replace(/\|/g, '\n');
    out.push(msg('', c, '', 'bipia-email', 'email', dedupKey(c)));
  }
  for (const r of injectionOwn()) if (r.label === 0) out.push(msg(r.subject, r.text, r.html ?? '', 'own-benign-email', 'email', r.group));
  const spam = enronSpam().filter((x) => x.label === 1);
  for (let i = 0; i < spam.length; i += 12) out.push(msg(spam[i].subject ?? '', spam[i].text, '', 'spam-as-benign', 'spam', spam[i].group));
  // our hand-written transactional mail (receipts, invoices, password resets,
  // bookings, replies): real ham is from 2001–2005 and rarely says "the
  // invoice is attached, payment is due in 30 days" — without these the
  // model learned invoice and payment words from the payment-fraud attacks
  for (const { ex } of coldOwn()) if (ex.label === 0) out.push(msg(ex.subject ?? '', ex.text, '', 'own-transactional', String(ex.meta?.kind ?? 'tx'), ex.group));
  // (the styles added in 2.1 — shipping, security notices, project updates,
  // an existing vendor — are marked: the 2.0 recipe does not train on them)
  // (2.3's styles — transactional mail in other languages — are cold-screen
  // data only: the injection recipe's data, and so its leave-one-source-out
  // table and the quarantine calibration, stay those of 2.2)
  for (const { ex, rec } of coldStyles()) if (ex.label === 0 && sinceAtMost(rec.since, '2.2')) out.push({ ...msg(ex.subject ?? '', ex.text, '', 'own-transactional', String(ex.meta?.style ?? 'tx'), ex.group), ...(rec.since ? { extra: true } : {}) });
  return out;
}

// ------------------------------------------------------------- embedding
const escapeHtml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const SIGS = ['--\nJordan Blake\nAccount Manager, Northwind Traders\n+1 415 555 0134', 'Best regards,\nMaria', '-- \nSent from my phone', 'Thanks,\nDev\n\nDev Patel | Operations\nContoso Ltd.', 'Cheers,\nTom'];
const HIDERS = ['display:none', 'font-size:0px', 'color:#ffffff', 'opacity:0', 'comment'];

function paragraphs(t: string): string[] {
  return t.split(/\n\s*\n/).filter((x) => x.trim());
}

/** Insert `payload` into `host` at `pos`; deterministic in `salt`. */
export function embed(host: Host, payload: Payload, pos: Position, salt: number): Msg {
  const base = { label: payload.label, source: payload.source, kind: payload.kind, group: payload.group, payload: payload.text, position: pos };
  const paras = paragraphs(host.text);
  const h = fnv1a(payload.group, salt);
  switch (pos) {
    case 'start':
      return { ...base, subject: host.subject, html: '', text: payload.text + '\n\n' + host.text };
    case 'middle': {
      const at = Math.max(1, Math.floor(paras.length / 2));
      return { ...base, subject: host.subject, html: '', text: [...paras.slice(0, at), payload.text, ...paras.slice(at)].join('\n\n') };
    }
    case 'end':
      return { ...base, subject: host.subject, html: '', text: host.text + '\n\n' + payload.text };
    case 'after-signature':
      return { ...base, subject: host.subject, html: '', text: host.text + '\n\n' + SIGS[h % SIGS.length] + '\n\n\n' + payload.text };
    case 'quoted': {
      const quoted = payload.text
        .split('\n')
        .map((l) => '> ' + l)
        .join('\n');
      return { ...base, subject: 'Re: ' + host.subject, html: '', text: 'Thanks, see my notes below.\n\nOn Mon, Mar 3, 2025 at 10:12 AM Sam Lee <sam@example.com> wrote:\n' + quoted + '\n>\n' + host.text.split('\n').map((l) => '> ' + l).join('\n') };
    }
    case 'hidden-html': {
      const how = HIDERS[h % HIDERS.length];
      const hidden = how === 'comment' ? `<!-- ${payload.text.replace(/--/g, '- -')} -->` : how === 'color:#ffffff' ? `<span style="color:#ffffff">${escapeHtml(payload.text)}</span>` : `<div style="${how}">${escapeHtml(payload.text)}</div>`;
      const body = paras.map((x) => `<p>${escapeHtml(x).replace(/\n/g, '<br>')}</p>`).join('\n');
      return { ...base, subject: host.subject, text: host.text, html: `<html><body>${body}\n${hidden}</body></html>` };
    }
  }
}

/** Deterministic sample of at most `n` items (by hash of their group). */
export function sample<T extends { group: string }>(items: readonly T[], n: number, salt: number): T[] {
  if (items.length <= n) return [...items];
  return [...items]
    .map((x, i) => ({ x, k: fnv1a(x.group + '#' + i, salt) }))
    .sort((a, b) => a.k - b.k)
    .slice(0, n)
    .map((v) => v.x);
}

export function pickHost(list: readonly Host[], key: string, salt: number): Host {
  return list[fnv1a(key, salt) % list.length];
}

/** The payload as written: a message of its own. */
export function asWritten(pl: Payload): Msg {
  const nl = pl.text.indexOf('\n');
  // short own attacks carry "subject\nbody"
  if (pl.kind === 'short' && nl > 0) return { subject: pl.text.slice(0, nl), text: pl.text.slice(nl + 1), html: '', label: pl.label, source: pl.source, kind: pl.kind, group: pl.group, payload: pl.text };
  return { subject: '', text: pl.text, html: '', label: pl.label, source: pl.source, kind: pl.kind, group: pl.group, payload: pl.text };
}
