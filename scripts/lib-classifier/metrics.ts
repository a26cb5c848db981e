// Evaluation metrics shared by the scripts.

/** ROC-AUC by the rank-sum (Mann–Whitney) formula, ties averaged. */
export function auc(scores: number[], labels: number[]): number {
  const idx = scores.map((s, i) => [s, labels[i]] as const).sort((a, b) => a[0] - b[0]);
  let rankSumPos = 0;
  let pos = 0;
  let i = 0;
  while (i < idx.length) {
    let j = i;
    while (j + 1 < idx.length && idx[j + 1][0] === idx[i][0]) j++;
    const avg = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (idx[k][1] === 1) {
      rankSumPos += avg;
      pos++;
    }
    i = j + 1;
  }
  const neg = idx.length - pos;
  if (pos === 0 || neg === 0) return NaN;
  return (rankSumPos - (pos * (pos + 1)) / 2) / (pos * neg);
}

export function prf(pred: boolean[], labels: number[]): { p: number; r: number; f1: number; tp: number; fp: number; fn: number; tn: number } {
  let tp = 0, fp = 0, fn = 0, tn = 0;
  for (let i = 0; i < pred.length; i++) {
    if (pred[i] && labels[i] === 1) tp++;
    else if (pred[i]) fp++;
    else if (labels[i] === 1) fn++;
    else tn++;
  }
  const p = tp + fp ? tp / (tp + fp) : 0;
  const r = tp + fn ? tp / (tp + fn) : 0;
  return { p, r, f1: p + r ? (2 * p * r) / (p + r) : 0, tp, fp, fn, tn };
}

/** Recall of positives at the threshold that keeps false positives on `negScores` at or below `fpr`. */
export function recallAtFpr(posScores: number[], negScores: number[], fpr: number): { recall: number; threshold: number } {
  const neg = [...negScores].sort((a, b) => b - a);
  const allowed = Math.floor(neg.length * fpr);
  const threshold = allowed < neg.length ? neg[allowed] : -Infinity; // strictly above this
  const recall = posScores.filter((s) => s > threshold).length / Math.max(1, posScores.length);
  return { recall, threshold };
}

export function percentile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
