// Classifier 2.2 (issue #12, session 3): separator lines need not be token
// flooding (a run-time option stored with the weights), and the shipped
// weights: account notices in training, hard-negative pass.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { injectionInputOf, ruleEvidence, scanInjection } from '../../../src/classifier/injection.js';
import { injectionBundle } from '../../../src/classifier/model.js';
import { classifyInbound, type SenderHistory } from '../../../src/classifier/index.js';

const UNKNOWN: SenderHistory = { messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0, spfPass: null, dkimPass: null, suppressed: false, complaints: 0 };

const sep = (t: string, n: number) => Array.from({ length: n }, () => t).join(' ');
const ham = (line: string) =>
  `Vince, the figures for the Houston desk are below.\n\n${line} forwarded by vince j kaminski / hou / ect on 09 / 19 / 2000 ${line}\n\nLet me know if the totals look right.\nShirley`;
const inputOf = (text: string) => injectionInputOf('Re: desk figures', text, '').input;

describe('token flooding and separator lines (2.2 option)', () => {
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

describe('the shipped weights (2.2 and later)', () => {
  it('the weights module is ASCII only (one other character makes V8 keep its 0.8 MB source as a two-byte string in every thread)', () => {
    const src = readFileSync(new URL('../../../src/classifier/weights.ts', import.meta.url), 'utf8');
    expect(src.match(/[^\x00-\x7f]/g) ?? []).toEqual([]);
  });

  it('turn the separator option on and carry a calibration', () => {
    const b = injectionBundle();
    expect(b.ignoreSeparatorRuns).toBe(true);
    expect(b.quarantineAt).toBeGreaterThan(0.5);
    expect(b.quarantineAt).toBeLessThan(1);
  });

  it('score the benign account notices of the fixtures below 0.5 (the 2.1 regression is gone)', () => {
    const c = classifyInbound({ from: 'someone@example.com', subject: 'Password reset', text: 'You asked to reset your password. Use this link within one hour: https://accounts.example.com/reset/8f2a', classifyIntent: false, history: UNKNOWN }, new Date('2025-03-10T12:00:00Z'));
    expect(c.injection_score).toBeLessThan(0.5);
  });
});
