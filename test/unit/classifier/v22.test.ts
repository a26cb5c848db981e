// Classifier 2.2 (issue #12, session 3): separator lines are not token
// flooding (a run-time option stored with the weights), and the shipped
// weights carry it.
import { describe, expect, it } from 'vitest';
import { injectionInputOf, ruleEvidence, scanInjection } from '../../../src/classifier/injection.js';
import { injectionBundle } from '../../../src/classifier/model.js';

const sep = (t: string, n: number) => Array.from({ length: n }, () => t).join(' ');
const ham = (line: string) =>
  `Vince, the figures for the Houston desk are below.\n\n${line} forwarded by vince j kaminski / hou / ect on 09 / 19 / 2000 ${line}\n\nLet me know if the totals look right.\nShirley`;
const inputOf = (text: string) => injectionInputOf('Re: desk figures', text, '').input;

describe('token flooding and separator lines (2.2)', () => {
  it('a run of a separator token ("- - - -", "* * *", "= =") is not encoding_tricks with the option on', () => {
    for (const t of ['-', '*', '=', '_', '.', '~']) {
      const inp = inputOf(ham(sep(t, 30)));
      expect(ruleEvidence(inp, true).strengths.has('encoding_tricks'), t).toBe(false);
      // the 2.1 behaviour, still available for older weights
      expect(ruleEvidence(inp, false).strengths.get('encoding_tricks'), t).toBe(0.55);
    }
  });

  it('still flags flooding with a word or a letter', () => {
    for (const t of ['ö', 'ha', 'now']) expect(ruleEvidence(inputOf(ham(sep(t, 30))), true).strengths.get('encoding_tricks'), t).toBe(0.55);
  });

  it('a separator breaks a run: "ö - ö - ö" is not a 30-token run of one token', () => {
    const mixed = Array.from({ length: 30 }, () => 'ö -').join(' ');
    expect(ruleEvidence(inputOf(ham(mixed)), true).strengths.has('encoding_tricks')).toBe(false);
  });

  it('scanInjection follows the bundle option', () => {
    const inp = inputOf(ham(sep('-', 40)));
    const on = scanInjection(inp, { ...injectionBundle(), ignoreSeparatorRuns: true });
    const off = scanInjection(inp, { ...injectionBundle(), ignoreSeparatorRuns: false });
    expect(on.categories).not.toContain('encoding_tricks');
    expect(off.categories).toContain('encoding_tricks');
    expect(on.score).toBeLessThan(off.score);
  });
});

describe.skip('the shipped weights (2.2)', () => {
  it('turn the separator option on', () => {
    expect(injectionBundle().ignoreSeparatorRuns).toBe(true);
  });
});
