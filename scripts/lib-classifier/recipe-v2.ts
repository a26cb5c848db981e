// The v2 injection recipe (issue #12), shared by train-classifier.ts (the
// shipped model) and eval-classifier.ts (one model per held-out source):
//   1. messages: attacks and benign counterparts as written AND embedded in
//      real host mail (start, middle, end, after the signature, quoted,
//      hidden HTML), plus benign mail;
//   2. windows: the run-time sentence-pair windows (src/classifier/signals.ts)
//      of each message, labelled 1 when they hold part of the attack;
//   3. an n-gram logistic model on the windows, and its out-of-fold margins
//      (3 folds by message group) as one feature of
//   4. gradient-boosted trees over the hand-written window features;
//   5. (2.1) a document n-gram model of whole texts (subject + visible, or
//      hidden), trained on the messages, whose out-of-fold margin is one more
//      tree input of every window of that part — what the v1 document model
//      knew about attacks read on their own; and the output-manipulation goal
//      set (output-goals.jsonl) with its human-addressed counterparts.
// (2.2) the benign account notices, a hard-negative pass of the trees and
// the run-time separator option. Every recipe stays runnable:
// eval-classifier.ts reports the previous one (BEFORE, default 2.1) and the
// shipped one (AFTER).
import { injectionInputOf } from '../../src/classifier/injection.js';
import { MODEL_HIDDEN_CHARS, MODEL_SCAN_CHARS } from '../../src/classifier/injection.js';
import { buildScanDoc, pairWindows, segmentFeatures, windowVector, FEATURES, N_FEATURES, N_FEATURES_27, F_HIDDEN } from '../../src/classifier/signals.js';
import type { InjectionBundle } from '../../src/classifier/model.js';
import { decodeTrees, treeMargin, type TreeSpec } from '../../src/classifier/trees.js';
import { bounded } from '../../src/classifier/text.js';
import { fnv1a, isEval } from './data.js';
import { trainLR, toLinear, type FloatModel, type TrainItem } from './lr.js';
import { trainGbt, GBT_DEFAULTS } from './gbt.js';
import { featurize, MAX_FEATURES } from '../../src/classifier/features.js';
import { embeddingOf, probeMargin, trainProbe, windowTextOf, type Probe } from './encoder.js';
import { ATTACK_SOURCES, POSITIONS, type Payload, asWritten, assistantGoals, multilingualGoals, hiddenBenignEval, hiddenBenignPayloads, hiddenTwice, htmlHam, attackSources, benignMessages, benignPayloads, embed, hosts, ownAttackEmails, pickHost, sample, type AttackSource, type Msg } from './loso.js';

export const LR_OPTS = { bits: 17, epochs: 3, lr: 0.15, l2: 1e-6, seed: 11, balance: false };
/** Training sample caps (the machine is shared; a fold must train in well under a minute). */
export const CAPS = { attacksPerSource: 500, benignPayloads: 1500, hosts: 2500, otherBenign: 5000, windowsPerMessage: 6 };
export const DOC_LR_OPTS = { bits: 17, epochs: 4, lr: 0.15, l2: 1e-6, seed: 13, balance: true };

export interface Recipe {
  name: string;
  /** the document model's out-of-fold margin as a tree input (2.1) */
  docModel: boolean;
  /** train on output-goals.jsonl too (2.1) */
  extraData: boolean;
  /** weight of benign prompts written to an AI (awesome-chatgpt-prompts, deepset negatives) relative to other negatives */
  promptNegWeight: number;
  /** the document model learns from texts as written only (attacks and benign payloads on their own, whole benign mail) */
  docWrittenOnly: boolean;
  /** attacks sampled per source (train side) */
  attacksPerSource: number;
  /** positions each training attack and benign payload is embedded at (besides as written) */
  embeds: number;
  /** benign payloads sampled for training (2.0: 1,500 of ~2,560; 2.1: all of them) */
  benignPayloads: number;
  /** the your_output window feature (2.1) */
  yourOutput: boolean;
  /** hidden_content graded by the model's probability for the hidden text (2.1; a run-time option stored with the weights) */
  gradedHidden: boolean;
  /** separator lines ("- - - - -") are not token flooding (2.2; a run-time option stored with the weights) */
  ignoreSeparatorRuns: boolean;
  /** train on the benign account notices of output-goals.jsonl (2.2: the phishing goal's benign twin) */
  accountNotice: boolean;
  /**
   * hard-negative pass (2.2: 3; 2.4: 6): after the trees are trained, the benign
   * windows the trees score highest (the top 1% of training negatives — the
   * region that sets a 1%-FPR threshold) get this weight and the trees are
   * trained again; 1 = no second pass
   */
  hardNegWeight: number;
  trees: number;
  /**
   * a MEASUREMENT, not shipped (issue #12 item "a real encoder"): the
   * out-of-fold margin of a linear probe on a pretrained sentence encoder's
   * window embedding as one more tree input (scripts/lib-classifier/encoder.ts;
   * embeddings must be computed with ensureEmbeddings first)
   */
  encoder?: boolean;
  /**
   * (2.4) benign hidden text as real mail hides it — the train side of
   * hidden-benign.jsonl (pre-headers, delivery and tracking boilerplate,
   * template comments) hidden in host mail by the code that hides attacks,
   * and real HTML ham (SpamAssassin) with its HTML; before 2.4 every hidden
   * text in training was an inserted payload, and "hidden" itself read as
   * attack evidence
   */
  hiddenBenign?: boolean;
  /** (2.6) hidden text's model probability counts only for windows that instruct someone (a run-time option stored with the weights; model.ts) */
  hiddenNeedsInstruction?: boolean;
  /**
   * (2.7) a run-time option stored with the weights (model.ts): the logit of the
   * visible window maximum is lowered by c * ln(n / 4) for n > 4 visible windows
   */
  windowCountCorrection?: number;
  /** (2.7) the same correction for the hidden windows' maximum, by their own number (run-time, stored with the weights) */
  windowCountHidden?: boolean;
  /** (2.5) the same benign texts also as written (a visible message of their own), as every attack and benign payload is: hidden or not is then not the signal */
  hiddenBenignWritten?: boolean;
  /**
   * (2.8) train on assistant-goals.jsonl: attacks addressed to the assistant
   * that processes the mail (what a summary or reply says, links, language,
   * classification, exfiltration) and benign counterparts with the same verbs
   * (loso.ts assistantGoals(); training only, never in the evaluation sets)
   */
  assistantGoals?: boolean;
  /**
   * (2.8) windows kept per benign message (default CAPS.windowsPerMessage, 6):
   * a long benign message has far more windows than 6, and the one that tops
   * it at run time was mostly never trained on; with more of them in the
   * rows, the hard-negative pass can find and weigh them
   */
  negWindowsPerMessage?: number;
  /**
   * (2.9) negWindowsPerMessage applies to whole benign mail only (a benign
   * message with no inserted payload); a host carrying an embedded benign
   * payload keeps CAPS.windowsPerMessage, like a host carrying an attack
   * (2.8b taught the host windows around an embedded payload to be benign)
   */
  negWindowsWholeOnly?: boolean;
  /**
   * (2.9) the learned combination of the score's parts (injection.ts
   * COMBINER_FEATURES; lib-classifier/combiner.ts): the features it reads and
   * its L2 strength. Trained after the window model — per fold on the fold's
   * training sources, cross-fitted; for the final model on every source's
   * evaluation side — and stored with the weights (a run-time option: it
   * changes no fold model)
   */
  combiner?: { use: readonly string[]; l2: number };
  /**
   * (2.10) the goal rules (injection.ts GOAL_RULES): instructions about the
   * output the reader produces, written from a goal taxonomy; a run-time
   * option stored with the weights (it changes no fold model)
   */
  goalRules?: boolean;
  /** 2.12: the rules also read look-alike letters, leetspeak and ROT13 (run time; src/classifier/injection.ts obfuscationReadings) */
  foldObfuscation?: boolean;
  /**
   * (2.10) training windows read the HTML part's sentences that the plain part does not say, as
   * classifyInbound does since session 9 (default off: the shipped models were trained without)
   */
  trainReadsUnseenHtml?: boolean;
  /**
   * (2.11) the goal features as tree inputs (signals.ts FEATURES after your_output: the output rewritten,
   * content put into it, the user spoken of, malicious goals, output dictated, the override and instruction
   * words of de/fr/es/it/pt); without it those columns are 0 in training and no tree splits on them
   */
  goalFeatures?: boolean;
  /**
   * (2.11) train on multilingual-goals.jsonl: overrides, task hijacks, dictated output and exfiltration in
   * German, French, Spanish, Italian and Portuguese, written from goals, with benign counterparts in the same
   * languages using the same verbs (loso.ts multilingualGoals(); training only, never in the evaluation sets;
   * the own source: the fold that holds out `own` does not train on it)
   */
  multilingualGoals?: boolean;
  /** host emails and other benign messages sampled for training (default CAPS.hosts, CAPS.otherBenign; the encoder measurement uses fewer) */
  hosts?: number;
  otherBenign?: number;
}
const DOC_COL = FEATURES.indexOf('doc');
const YOUR_OUTPUT_COL = FEATURES.indexOf('your_output');
export const RECIPE_20: Recipe = { name: '2.0', docModel: false, docWrittenOnly: false, extraData: false, promptNegWeight: 1, attacksPerSource: CAPS.attacksPerSource, embeds: 1, benignPayloads: CAPS.benignPayloads, yourOutput: false, gradedHidden: false, accountNotice: false, ignoreSeparatorRuns: false, hardNegWeight: 1, trees: GBT_DEFAULTS.trees };
export const RECIPE_21: Recipe = { name: '2.1', docModel: true, docWrittenOnly: false, extraData: true, promptNegWeight: 1, attacksPerSource: 1200, embeds: 3, benignPayloads: 4000, yourOutput: true, gradedHidden: true, accountNotice: false, ignoreSeparatorRuns: false, hardNegWeight: 1, trees: GBT_DEFAULTS.trees };
// 2.2 as shipped: 2.1 + the benign account notices + the hard-negative pass,
// and separator lines are not token flooding at run time (the evaluation's
// ablation scores the same fold models without that option).
export const RECIPE_22: Recipe = { ...RECIPE_21, name: '2.2', accountNotice: true, hardNegWeight: 3, ignoreSeparatorRuns: true };
// 2.3: the injection recipe of 2.2 unchanged (the same data, models and
// calibration); the version names the cold screen's new training data
// (cold-styles.jsonl styles since 2.3: pitches and transactional mail in
// other languages, which the injection data leaves out — loso.ts).
export const RECIPE_23: Recipe = { ...RECIPE_22, name: '2.3' };
// 2.4: 2.3 + benign hidden text in training (hidden-benign.jsonl and real HTML ham)
// + the hard-negative pass at ×6 (2.2: ×3): the top 1% of benign training
// windows, the region that sets a 1%-FPR threshold, weigh twice as much as
// in 2.2 (docs/classifier.md, session 5: worst-source embedded recall 0.145 →
// 0.165, the AUCs within 0.001).
export const RECIPE_24: Recipe = { ...RECIPE_23, name: '2.4', hiddenBenign: true, hardNegWeight: 6 };
// 2.5 (measured, not shipped): 2.4's data + those benign texts also as written (visible), like every other payload, with the ×3 pass.
export const RECIPE_25: Recipe = { ...RECIPE_24, name: '2.5', hiddenBenignWritten: true, hardNegWeight: 3 };
// 2.6: 2.4's models and training unchanged (the injection data is 2.4's; the
// cold screen has new styles and rules) + the run-time option
// hiddenNeedsInstruction: the model's probability for hidden text counts as
// hidden_content evidence only for windows that instruct someone (model.ts).
// Only the scoring — and so the quarantine calibration — differs from 2.4.
export const RECIPE_26: Recipe = { ...RECIPE_24, name: '2.6', hiddenNeedsInstruction: true };
// 2.7: 2.6's models and training unchanged + the run-time option
// windowCountCorrection 0.35 (the visible window maximum of a long message is
// discounted by 0.35 * ln(n / 4); windowCountHidden: the hidden windows' maximum
// likewise, by their own number) and the narrower "jailbreak" rule
// (injection.ts). Only the scoring — and so the calibration — differs from 2.6.
// docs/classifier.md "Classifier 2.7": 0.5 was chosen first on the tensor-trust
// and own folds, before the worst sources were scored; it cost 0.001 of the
// worst embedded AUC, and 0.35 was then chosen among 0.25 / 0.35 / 0.5 on all
// five folds (a selection on the held-out sources: the figures are optimistic).
export const RECIPE_27: Recipe = { ...RECIPE_26, name: '2.7', windowCountCorrection: 0.35, windowCountHidden: true };
// 2.8a / 2.8b (session 8, measured, NOT shipped — 2.7 stays): 2.7 + the
// assistant-goal training set (a), + 16 training windows per benign message
// (b). docs/classifier.md "Classifier 2.8": a lowers BIPIA's recall, b raises
// written recall and lowers the embedded AUC below 0.85.
export const RECIPE_28A: Recipe = { ...RECIPE_27, name: '2.8a', assistantGoals: true };
export const RECIPE_28B: Recipe = { ...RECIPE_28A, name: '2.8b', negWindowsPerMessage: 16 };
// 2.9c (session 9, measured): 2.7 + 16 training windows per WHOLE benign message (no
// embedded payload); hosts with an embedded benign payload keep 6 (docs/classifier.md "Classifier 2.9").
export const RECIPE_29C: Recipe = { ...RECIPE_27, name: '2.9c', negWindowsPerMessage: 16, negWindowsWholeOnly: true };
// 2.9 (measured, NOT shipped — 2.7 stays): the learned combination of the window parts (the noisy-OR score,
// the window maximum before the count correction, the second window, log window count, log windows above 0.5),
// on 2.7's fold models (2.7w) and on 2.9c's (2.9cw, the one the design figure chose; it lowered the worst
// source's embedded recall 0.200 -> 0.190).
export const COMBINER_WINDOW_PARTS = { use: ['score', 'vis_max', 'vis_second', 'windows', 'vis_high'], l2: 1 } as const;
export const RECIPE_27W: Recipe = { ...RECIPE_27, name: '2.7w', combiner: COMBINER_WINDOW_PARTS };
export const RECIPE_29CW: Recipe = { ...RECIPE_29C, name: '2.9cw', combiner: COMBINER_WINDOW_PARTS };
// 2.10: 2.7's models, with the goal rules (a run-time option: the fold models are 2.7's)
export const RECIPE_210: Recipe = { ...RECIPE_27, name: '2.10', goalRules: true };
// 2.11 (session 11): 2.10 + the goal features as tree inputs (signals.ts: output rewritten, content inserted, the
// user spoken of, malicious goals, output dictated, override and instruction words of de/fr/es/it/pt) + the
// multilingual training set (multilingual-goals.jsonl; training only). Retrains every model.
// The first candidate (2.11a; called "2.11" in the rule of docs/classifier.md) failed the rule by the worst
// embedded recall (0.293 -> 0.287); 2.11 as shipped = 2.11a's models + windowCountCorrection 0.5, the strength
// re-chosen for the new models on the design figure (a second look at the held-out sources, said so in the docs).
export const RECIPE_211A: Recipe = { ...RECIPE_210, name: '2.11a', goalFeatures: true, multilingualGoals: true };
export const RECIPE_211: Recipe = { ...RECIPE_211A, name: '2.11', windowCountCorrection: 0.5 };
// 2.11f: the goal features alone (a diagnostic of session 11, never eligible to ship)
export const RECIPE_211F: Recipe = { ...RECIPE_210, name: '2.11f', goalFeatures: true };
// 2.12 (session 11): 2.11's models; the rules also read look-alike letters, leetspeak and ROT13 (run time)
export const RECIPE_212: Recipe = { ...RECIPE_211, name: '2.12', foldObfuscation: true };
// 2.13: 2.12's injection recipe unchanged (the same data, models, trees and calibration: the foldKey
// leaves the name out, so 2.12's fold cache serves it); the version names the cold screen's new data
// (cold-styles.jsonl styles since 2.13) and rules.
export const RECIPE_213: Recipe = { ...RECIPE_212, name: '2.13' };
// 2.14: the same again; the version names the cold screen's 2.14 data and rules.
export const RECIPE_214: Recipe = { ...RECIPE_213, name: '2.14' };
export const RECIPES: Record<string, Recipe> = { '2.0': RECIPE_20, '2.1': RECIPE_21, '2.2': RECIPE_22, '2.3': RECIPE_23, '2.4': RECIPE_24, '2.5': RECIPE_25, '2.6': RECIPE_26, '2.7': RECIPE_27, '2.8a': RECIPE_28A, '2.8b': RECIPE_28B, '2.9c': RECIPE_29C, '2.7w': RECIPE_27W, '2.9cw': RECIPE_29CW, '2.10': RECIPE_210, '2.11a': RECIPE_211A, '2.11': RECIPE_211, '2.11f': RECIPE_211F, '2.12': RECIPE_212, '2.13': RECIPE_213, '2.14': RECIPE_214 };
export const SHIPPED_RECIPE = RECIPE_214;

function norm(s: string): string {
  return s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
}

/** Probes of the payload: 5-word shingles (step 3), or the whole text when short. */
function probes(payload: string): string[] {
  const w = norm(payload).split(' ').filter(Boolean);
  if (w.length <= 6) return w.length ? [w.join(' ')] : [];
  const out: string[] = [];
  for (let i = 0; i + 5 <= w.length; i += 3) out.push(w.slice(i, i + 5).join(' '));
  return out;
}

export interface WindowRow {
  parts: string[];
  vec: Float32Array;
  label: 0 | 1;
  group: string;
  /** index into the message's doc items: 0 = subject + visible, 1 = hidden */
  part: 0 | 1;
  weight: number;
}

/** A whole part of a message for the document model (the run-time sums over all its segments). */
export interface DocItem {
  feats: Uint32Array;
  label: 0 | 1;
  group: string;
  /** an attack or benign payload inserted into host mail */
  embedded: boolean;
}

const PROMPT_SOURCES = new Set(['awesome-chatgpt-prompts', 'deepset-benign']);

/** The run-time windows of a message, with labels; and its parts as whole texts. */
export function messageWindows(m: Msg, cap = CAPS.windowsPerMessage, recipe: Recipe = RECIPE_20): { rows: WindowRow[]; docs: (DocItem | null)[] } {
  // (2.10) training reads a message as classifyInbound did until session 9 — the HTML's visible text beside
  // the plain part only when their lengths differ by over 200 characters — unless the recipe says otherwise: the run-time fix that also reads the HTML's unseen sentences
  // changed the training windows of 63 HTML ham messages, and with them every model (the 2.7 table and
  // weights stopped reproducing, and a benign password-reset notice rose from 0.47 to 0.71)
  const { input } = injectionInputOf(bounded(m.subject, 2000), bounded(m.text), bounded(m.html, 128 * 1024), recipe.trainReadsUnseenHtml === true);
  const { doc, segs } = buildScanDoc(input.subject.toLowerCase(), input.visible.toLowerCase(), input.hidden.toLowerCase(), MODEL_SCAN_CHARS, MODEL_HIDDEN_CHARS);
  const sf = segmentFeatures(doc, segs);
  const wins = pairWindows(segs);
  const pr = m.label === 1 && m.position ? probes(m.payload ?? '') : [];
  const weight = m.label === 0 && PROMPT_SOURCES.has(m.source) ? recipe.promptNegWeight : 1;
  const docs: (DocItem | null)[] = [null, null];
  if (recipe.docModel) {
    const bufs: number[][] = [[], []];
    for (const sg of segs) {
      const n = featurize(doc, sg.a, sg.b, fbuf, 0);
      const b = bufs[sg.flags & F_HIDDEN ? 1 : 0];
      for (let k = 0; k < n; k++) b.push(fbuf[k]);
    }
    for (const k of [0, 1] as const) {
      if (k === 1 && !bufs[1].length) continue;
      const lab = m.label === 1 && (k === 1 ? m.position === 'hidden-html' : m.position !== 'hidden-html') ? 1 : 0;
      docs[k] = { feats: Uint32Array.from(bufs[k]), label: lab, group: m.group, embedded: !!m.position };
    }
  }
  const pos: WindowRow[] = [];
  const neg: WindowRow[] = [];
  for (const w of wins) {
    const parts = w[0] === w[1] ? [doc.slice(segs[w[0]].a, segs[w[0]].b)] : [doc.slice(segs[w[0]].a, segs[w[0]].b), doc.slice(segs[w[1]].a, segs[w[1]].b)];
    const vec = Float32Array.from(windowVector(segs, sf, w, 0, wins.length, new Float32Array(N_FEATURES)));
    let label: 0 | 1 = 0;
    if (m.label === 1) {
      if (!m.position) label = 1; // as written: the whole text is the attack
      else {
        const t = norm(parts.join(' '));
        label = pr.some((x) => t.includes(x)) ? 1 : 0;
      }
    }
    const part = segs[w[0]].flags & F_HIDDEN ? 1 : 0;
    (label ? pos : neg).push({ parts, vec, label, group: m.group, part, weight });
  }
  const pick = (arr: WindowRow[], c: number) => (arr.length <= c ? arr : arr.filter((_, i) => fnv1a(m.group + i, 3) % arr.length < c).slice(0, c));
  return { rows: [...pick(pos, cap), ...pick(neg, m.label === 0 && !(recipe.negWindowsWholeOnly && m.position) ? (recipe.negWindowsPerMessage ?? cap) : cap)], docs };
}

/** Training messages: every source except `exclude` (one, or several: 2.9's nested folds), train side of the split only. */
export function trainingMessages(exclude: AttackSource | readonly AttackSource[] | null, recipe: Recipe = RECIPE_20): Msg[] {
  const left = (s: AttackSource) => (Array.isArray(exclude) ? exclude.includes(s) : s === exclude);
  const out: Msg[] = [];
  const H = hosts().train;
  const src = attackSources();
  const use = (x: Payload) => !isEval(x.group) && (recipe.extraData || !x.extra) && (recipe.accountNotice || x.kind !== 'output-account_notice');
  for (const s of ATTACK_SOURCES) {
    if (left(s)) continue;
    const all = (src.get(s) ?? []).filter(use);
    // the extra set is small and would mostly be sampled away among 500: it is always kept
    const pl = [...sample(all.filter((x) => !x.extra), recipe.attacksPerSource, 101), ...all.filter((x) => x.extra)];
    for (const x of pl) {
      out.push(asWritten(x));
      const p0 = fnv1a(x.group, 9) % POSITIONS.length;
      for (let e = 0; e < recipe.embeds; e++) out.push(embed(pickHost(H, x.group + (e ? '#' + e : ''), 5), x, POSITIONS[(p0 + e * 3) % POSITIONS.length], 1));
    }
    // (our hand-written attack emails are not trained on: their windows are
    // not labelled — which sentence is the attack — and labelling the whole
    // email taught the model "the invoice is attached, payment is due")
  }
  const bpl = benignPayloads().filter(use);
  for (const x of [...sample(bpl.filter((b) => !b.extra), recipe.benignPayloads, 103), ...bpl.filter((b) => b.extra)]) {
    out.push(asWritten(x));
    const p0 = fnv1a(x.group, 10) % POSITIONS.length;
    for (let e = 0; e < recipe.embeds; e++) out.push(embed(pickHost(H, x.group + (e ? '#' + e : ''), 6), x, POSITIONS[(p0 + e * 3) % POSITIONS.length], 2));
  }
  // the own training-only sets (2.8's assistant goals, 2.11's multilingual goals): attacks as written and
  // at `embeds` positions, like every attack; the benign counterparts (fewer) as written and at all six
  const trainOnly = (set: Payload[], salts: [number, number, number]) => {
    for (const x of set) {
      out.push(asWritten(x));
      const p0 = fnv1a(x.group + x.text, salts[0]) % POSITIONS.length;
      const k = x.label ? recipe.embeds : POSITIONS.length;
      for (let e = 0; e < k; e++) out.push(embed(pickHost(H, x.text + '#' + e, salts[1]), x, POSITIONS[(p0 + e * (x.label ? 3 : 1)) % POSITIONS.length], salts[2]));
    }
  };
  if (recipe.assistantGoals && !left('own')) trainOnly(assistantGoals(), [12, 8, 5]);
  if (recipe.multilingualGoals && !left('own')) trainOnly(multilingualGoals(), [14, 9, 6]);
  const bm = benignMessages().filter((b) => !isEval(b.group) && (recipe.extraData || !b.extra));
  out.push(...sample(bm.filter((b) => b.kind === 'ham'), recipe.hosts ?? CAPS.hosts, 107));
  out.push(...sample(bm.filter((b) => b.kind !== 'ham'), recipe.otherBenign ?? CAPS.otherBenign, 109));
  if (recipe.hiddenBenign) {
    for (const x of hiddenBenignPayloads().filter((b) => !isEval(b.group))) {
      out.push(...hiddenTwice(H, x, 15));
      if (recipe.hiddenBenignWritten) out.push(asWritten(x));
    }
    out.push(...htmlHam().filter((m) => !isEval(m.group)));
  }
  return out;
}

export interface EvalSets {
  negatives: Msg[];
  /** per source: as written, embedded (all six positions) */
  positives: Map<AttackSource, { written: Msg[]; embedded: Msg[] }>;
  /** benign hidden text (2.4; hiddenBenignEval): reported beside the table, not one of the shared negatives */
  hiddenBenign: Msg[];
}

/**
 * Evaluation messages. Negatives: evaluation side only (hosts, short mail,
 * llmail, prompts…, benign payloads embedded like attacks). Positives of a
 * source: all its attacks (both sides: a held-out source was never trained
 * on), at most `perSource`; `evalSideOnly` for the in-source figure.
 */
export function evalSets(perSource = 250, evalSideOnly = false): EvalSets {
  const EH = hosts().eval;
  const negatives: Msg[] = [];
  const bm = benignMessages().filter((b) => isEval(b.group));
  negatives.push(...sample(bm.filter((b) => b.kind === 'ham'), 1200, 201));
  negatives.push(...sample(bm.filter((b) => b.kind !== 'ham'), 1500, 203));
  const bp = benignPayloads().filter((b) => isEval(b.group));
  for (const x of sample(bp, 700, 205)) {
    negatives.push(asWritten(x));
    // our own benign sets (trigger words, requests, agent tasks) at every position; others at one
    const ps = x.source.startsWith('own-benign') ? POSITIONS : [POSITIONS[fnv1a(x.group, 11) % POSITIONS.length]];
    for (const ps1 of ps) negatives.push(embed(pickHost(EH, x.group + ps1, 7), x, ps1, 3));
  }
  const positives = new Map<AttackSource, { written: Msg[]; embedded: Msg[] }>();
  const src = attackSources();
  for (const s of ATTACK_SOURCES) {
    const pl = sample((src.get(s) ?? []).filter((x) => !evalSideOnly || isEval(x.group)), perSource, 301);
    const written = pl.map(asWritten);
    const embedded: Msg[] = [];
    for (const x of pl) for (const ps of POSITIONS) embedded.push(embed(pickHost(EH, x.group + ps, 8), x, ps, 4));
    if (s === 'own') for (const e of ownAttackEmails()) if (!evalSideOnly || isEval(e.group)) embedded.push(e);
    positives.set(s, { written, embedded });
  }
  return { negatives, positives, hiddenBenign: hiddenBenignEval() };
}

export interface V2Model {
  recipe: Recipe;
  ngram: FloatModel;
  doc: FloatModel | null;
  trees: TreeSpec;
  rows: number;
  positives: number;
  /** the encoder probe (recipe option `encoder`, a measurement) */
  probe?: Probe;
}

const fbuf = new Uint32Array(MAX_FEATURES);
function marginOfFeats(m: ReturnType<typeof toLinear>, f: Uint32Array): number {
  const n = f.length;
  if (n === 0) return m.bias;
  let s = 0;
  for (let i = 0; i < n; i++) s += m.w[f[i] & m.mask];
  return m.bias + (s * m.scale) / Math.sqrt(n);
}

/** Train the n-gram model(s) and the trees on the windows of `msgs`. */
export function trainV2(msgs: Msg[], log: (s: string) => void = () => {}, recipe: Recipe = RECIPE_20): V2Model {
  const rows: WindowRow[] = [];
  const rowDoc: number[] = [];
  const docs: DocItem[] = [];
  for (const m of msgs) {
    const r = messageWindows(m, CAPS.windowsPerMessage, recipe);
    const idx = r.docs.map((d) => (d ? docs.push(d) - 1 : -1));
    for (const row of r.rows) {
      rows.push(row);
      rowDoc.push(idx[row.part]);
    }
  }
  const npos = rows.filter((r) => r.label === 1).length;
  // balance the classes (positives are fewer but each is a whole attack)
  const wPos = rows.length / (2 * Math.max(1, npos));
  const wNeg = rows.length / (2 * Math.max(1, rows.length - npos));
  const items: TrainItem[] = rows.map((r) => {
    let n = 0;
    for (const p of r.parts) n = featurize(p, 0, p.length, fbuf, n);
    return { text: '', feats: fbuf.slice(0, n), label: r.label, weight: (r.label ? wPos : wNeg) * r.weight };
  });
  log(`  [${recipe.name}] ${rows.length} windows (${npos} attack windows) from ${msgs.length} messages${recipe.docModel ? `, ${docs.length} whole parts` : ''}`);
  // out-of-fold n-gram margins for the trees (3 folds by message group)
  const K = 3;
  const fold = rows.map((r) => fnv1a(r.group, 17) % K);
  const oof = new Float32Array(rows.length);
  const docOof = new Float32Array(rows.length);
  const docItems: TrainItem[] = docs.map((d) => ({ text: '', feats: d.feats, label: d.label }));
  const docFold = docs.map((d) => fnv1a(d.group, 17) % K);
  const docTrain = (i: number) => !recipe.docWrittenOnly || !docs[i].embedded;
  for (let k = 0; k < K; k++) {
    const m = toLinear(trainLR(items.filter((_, i) => fold[i] !== k), LR_OPTS));
    for (let i = 0; i < rows.length; i++) if (fold[i] === k) oof[i] = marginOfFeats(m, items[i].feats!);
    if (recipe.docModel) {
      const dm = toLinear(trainLR(docItems.filter((_, i) => docFold[i] !== k && docTrain(i)), DOC_LR_OPTS));
      const dMargin = new Map<number, number>();
      for (let i = 0; i < rows.length; i++) {
        if (fold[i] !== k || rowDoc[i] < 0) continue;
        const d = rowDoc[i];
        let v = dMargin.get(d);
        if (v === undefined) dMargin.set(d, (v = marginOfFeats(dm, docs[d].feats)));
        docOof[i] = v;
      }
    }
  }
  // the encoder measurement: a linear probe's out-of-fold margin on the window embedding
  const encOof = new Float32Array(rows.length);
  let probe: Probe | undefined;
  if (recipe.encoder) {
    const E = rows.map((r) => embeddingOf(windowTextOf(r.parts)));
    const yy = rows.map((r) => r.label);
    const ww = items.map((it) => it.weight!);
    for (let k = 0; k < K; k++) {
      const idx = rows.map((_, i) => i).filter((i) => fold[i] !== k);
      const p = trainProbe(idx.map((i) => E[i]), idx.map((i) => yy[i]), idx.map((i) => ww[i]));
      for (let i = 0; i < rows.length; i++) if (fold[i] === k) encOof[i] = probeMargin(p, E[i]);
    }
    probe = trainProbe(E, yy, ww);
    log(`  encoder probe trained (${K} out-of-fold + final)`);
  }
  const ngram = trainLR(items, LR_OPTS);
  const doc = recipe.docModel ? trainLR(docItems.filter((_, i) => docTrain(i)), DOC_LR_OPTS) : null;
  log(`  n-gram model${doc ? 's' : ''} trained (${K} out-of-fold + final)`);
  const D = N_FEATURES + (recipe.encoder ? 1 : 0);
  const X = new Float32Array(rows.length * D);
  const y = new Uint8Array(rows.length);
  const w = new Float32Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    X.set(rows[i].vec, i * D);
    X[i * D] = oof[i];
    // 2.0 has no document model and no your_output: the columns stay 0 and no tree can split on them
    X[i * D + DOC_COL] = docOof[i];
    if (!recipe.yourOutput) X[i * D + YOUR_OUTPUT_COL] = 0;
    // before 2.11 the goal columns did not exist: 0, so a constant no tree splits on (the 2.7 models train byte-identically)
    if (!recipe.goalFeatures) X.fill(0, i * D + N_FEATURES_27, i * D + N_FEATURES);
    if (recipe.encoder) X[i * D + N_FEATURES] = encOof[i];
    y[i] = rows[i].label;
    w[i] = items[i].weight!;
  }
  let trees = trainGbt(X, D, y, w, { ...GBT_DEFAULTS, trees: recipe.trees });
  log(`  ${trees.roots.length} trees, ${trees.feat.length} nodes`);
  if (recipe.hardNegWeight !== 1) {
    const tm = decodeTrees(trees);
    const margin = new Float32Array(rows.length);
    for (let i = 0; i < rows.length; i++) margin[i] = treeMargin(tm, X.subarray(i * D, (i + 1) * D));
    const negM = Float32Array.from(margin.filter((_, i) => y[i] === 0)).sort().reverse();
    const cut = negM[Math.floor(negM.length * 0.01)];
    let hard = 0;
    for (let i = 0; i < rows.length; i++)
      if (y[i] === 0 && margin[i] >= cut) {
        w[i] *= recipe.hardNegWeight;
        hard++;
      }
    trees = trainGbt(X, D, y, w, { ...GBT_DEFAULTS, trees: recipe.trees });
    log(`  hard-negative pass: ${hard} benign windows ×${recipe.hardNegWeight}; ${trees.roots.length} trees, ${trees.feat.length} nodes`);
  }
  return { recipe, ngram, doc, trees, rows: rows.length, positives: npos, ...(probe ? { probe } : {}) };
}

/** The run-time bundle of a trained model (int8 n-gram weights, as shipped). */
export function bundleOf(m: V2Model, quarantineAt = 0.95): InjectionBundle {
  const probe = m.probe;
  return {
    ...(probe ? { windowExtra: (text: string) => probeMargin(probe, embeddingOf(text)) } : {}), ngram: toLinear(m.ngram), doc: m.doc ? toLinear(m.doc) : null, trees: decodeTrees(m.trees), quarantineAt, gradedHidden: m.recipe.gradedHidden, ignoreSeparatorRuns: m.recipe.ignoreSeparatorRuns, hiddenNeedsInstruction: m.recipe.hiddenNeedsInstruction === true, windowCountCorrection: m.recipe.windowCountCorrection ?? 0, windowCountHidden: m.recipe.windowCountHidden === true, goalRules: m.recipe.goalRules === true, foldObfuscation: m.recipe.foldObfuscation === true };
}
