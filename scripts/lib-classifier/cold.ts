// The cold-screen model recipe, shared by train-classifier.ts (shipped
// weights: every style) and eval-classifier.ts (leave-one-style-out: one
// model per held-out style of cold-styles.jsonl).
import { dedupAndSplit, type Example } from './data.js';
import { coldOwn, coldStyles, enronSpam, spamAssassin, shortOwn, sinceAtMost, checkTrains } from './corpora.js';
import { trainLR, type FloatModel, type TrainItem } from './lr.js';
import { docText, COLD_CHARS } from './items.js';

/** The newest version that added styles to cold-styles.jsonl. */
export const COLD_DATA_LATEST = '2.14';
export const COLD_OPTS = { bits: 16, epochs: 12, lr: 0.15, l2: 1e-5, seed: 4, balance: true };

/** Real ham sampled as transactional-side negatives. */
export function coldHam(): Example[] {
  return [...enronSpam().filter((x) => x.label === 0), ...spamAssassin().filter((x) => x.label === 0)].filter((_, i) => i % 8 === 0).map((x) => ({ ...x, source: 'real-ham' }));
}

/**
 * Training items: the train side of the template set (cold-outreach.jsonl)
 * and real ham, short transactional mail, and the style set without
 * `excludeStyle` (the style set is split by style, not by the template split);
 * `upTo`: the style set as of that classifier version (styles carry the
 * version that added them in `since`; '2.0' = the 2.0 recipe's data).
 */
export function coldItems(excludeStyle: string | null, upTo: string = COLD_DATA_LATEST): { items: TrainItem[]; evalSet: Example[]; train: Example[] } {
  const { items: common, evalSet, train } = (commonItems ??= coldCommon());
  const items = common.map((it) => ({ ...it }));
  // (2.13's fresh check trains only from 2.14 on; 2.14's never: it is the independent test of the 2.14 screen)
  for (const { ex, rec } of coldStyles()) if (rec.style !== excludeStyle && sinceAtMost(rec.since, upTo) && checkTrains(rec, upTo)) items.push({ text: docText(ex).slice(0, COLD_CHARS), label: ex.label, weight: 1 });
  return { items, evalSet, train };
}

/** The part of the training set every fold shares (read once: the corpora take most of a fold's time). */
let commonItems: { items: TrainItem[]; evalSet: Example[]; train: Example[] } | undefined;
function coldCommon(): { items: TrainItem[]; evalSet: Example[]; train: Example[] } {
  const own = coldOwn().map((x) => x.ex);
  const { train, evalSet } = dedupAndSplit([...own, ...coldHam()]);
  const items: TrainItem[] = train.map((ex) => ({ text: docText(ex).slice(0, COLD_CHARS), label: ex.label, weight: ex.source === 'real-ham' ? 0.5 : 1 }));
  // transactional kinds only: "Hi Anna, hope you are well!" is also how a pitch opens
  const shortBenignTrain = dedupAndSplit(shortOwn().map((x) => x.ex)).train.filter((ex) => ex.label === 0);
  for (const ex of shortBenignTrain) if (!['greeting', 'reply', 'tricky'].includes(String(ex.meta?.kind))) items.push({ text: docText(ex).slice(0, COLD_CHARS), label: 0, weight: 0.5 });
  return { items, evalSet, train };
}

export function trainCold(items: TrainItem[]): FloatModel {
  return trainLR(items, COLD_OPTS);
}
