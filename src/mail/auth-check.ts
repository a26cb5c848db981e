// SPF, DKIM and DMARC with mailauth: one round of the check (mail/auth.ts authenticateInRounds).
// Loaded by a pipeline worker on its first check (and, without a pool, on first use by
// services/message-work.ts), never by the daemon's main thread: DKIM hashes the whole body of a
// message, and mailauth's modules cost ~8 MB of heap in each thread that loads them
// (test/unit/server/thread-modules.test.ts).
import { authenticate } from 'mailauth';
import { dnsKey, type AuthCheckInput, type AuthOutcome, type AuthRound, type AuthRoundInput, type DnsAnswer } from './auth.js';

/**
 * SPF result word → pass (true), failed (false) or neither (null). `none` (no SPF record),
 * `neutral` (the domain asserts nothing) and `temperror` (DNS trouble) are not failures: the
 * spec's "unauthenticated" means SPF and DKIM both *failed* (docs/inbound.md → Authentication).
 */
const verdict = (result: string | undefined): boolean | null =>
  result === undefined || result === 'none' || result === 'neutral' || result === 'temperror' ? null : result === 'pass';

/** A DNS answer as the resolver gave it: a value, or the error (mailauth reads its `code`). */
function replay(a: DnsAnswer): Promise<string[][] | string[]> {
  if ('value' in a) return Promise.resolve(a.value);
  return Promise.reject(Object.assign(new Error(a.message), { code: a.code }));
}

/** The answer to a question this round does not have yet: a temporary error, and the question noted. */
class NotYetAsked extends Error {
  readonly code = 'ETIMEOUT';
}

/**
 * Run the whole check once over the DNS answers gathered so far. Questions without an answer are
 * noted and answered with a temporary error; if there were any, the outcome is thrown away and the
 * caller asks them and runs a round again (the check is deterministic in its answers). No network,
 * no timers: the round is pure CPU (DKIM's body hash, signature checks), bounded by the pool's budget.
 */
export async function authRound(input: AuthRoundInput): Promise<AuthRound> {
  const need = new Map<string, { name: string; rrtype: string }>();
  const resolver = (name: string, rrtype: string): Promise<string[][] | string[]> => {
    const key = dnsKey(name, rrtype);
    const a = input.answers[key];
    if (a) return replay(a);
    need.set(key, { name, rrtype });
    return Promise.reject(new NotYetAsked(`not asked yet: ${key}`));
  };
  let res: Awaited<ReturnType<typeof authenticate>>;
  try {
    res = await authenticate(Buffer.from(input.raw.buffer, input.raw.byteOffset, input.raw.byteLength), {
      ip: input.ip ?? undefined,
      helo: input.helo ?? undefined,
      sender: input.mailFrom || undefined,
      mta: input.mta,
      resolver: resolver as never,
      disableArc: true,
      disableBimi: true,
    });
  } catch {
    // A failure of the check itself is "not checked": mail is never lost to it.
    return need.size ? { need: [...need.values()] } : { outcome: { spf: null, dkim: null, dmarc: null, header: null } };
  }
  if (need.size) return { need: [...need.values()] };
  return { outcome: outcomeOf(res, input.ip) };
}

/** mailauth's answer as the stored message keeps it. */
function outcomeOf(res: Awaited<ReturnType<typeof authenticate>>, ip: string | null): AuthOutcome {
  const spfResult = ip ? (res.spf ? res.spf.status?.result : undefined) : undefined;
  const dkimResults = res.dkim?.results ?? [];
  // No signature at all is DKIM `none`: not a failure (see verdict()).
  const dkim = dkimResults.some((r) => r.status?.result === 'pass')
    ? true
    : !dkimResults.length || dkimResults.some((r) => r.status?.result === 'temperror') || dkimResults.every((r) => r.status?.result === 'none') ? null : false;
  const dmarc = res.dmarc ? (res.dmarc.status?.result ?? null) : null;
  const header = res.headers?.match(/Authentication-Results:[\s\S]*/)?.[0]?.trim() ?? null;
  return { spf: verdict(spfResult), dkim, dmarc, header };
}

/**
 * The whole check in one pass on this thread, asking `input.resolver` as it goes: the work without
 * a pool (services/message-work.ts inlineWork: tests, in-process use), where rounds would only
 * repeat the work. Never throws: a failure of the check itself, or `timeoutMs` (10 s) passing, is
 * "not checked".
 */
export async function checkAuthentication(input: AuthCheckInput): Promise<AuthOutcome> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const res = await Promise.race([
      authenticate(input.raw, {
        ip: input.ip ?? undefined, helo: input.helo ?? undefined, sender: input.mailFrom || undefined, mta: input.mta,
        resolver: input.resolver, disableArc: true, disableBimi: true,
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('authentication check timed out')), input.timeoutMs ?? 10_000);
        timer.unref();
      }),
    ]);
    return outcomeOf(res, input.ip);
  } catch {
    return { spf: null, dkim: null, dmarc: null, header: null };
  } finally {
    clearTimeout(timer);
  }
}
