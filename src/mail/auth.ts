import { promises as dnsPromises } from 'node:dns';
import { authenticate, type DNSResolver } from 'mailauth';

export type { DNSResolver } from 'mailauth';

/** SPF, DKIM and DMARC of one message (RFC 7208, RFC 6376, RFC 7489). null = not checked / temporary error. */
export interface AuthOutcome {
  spf: boolean | null;
  dkim: boolean | null;
  /** DMARC result word: pass, fail, none, temperror, permerror; null when not evaluated. */
  dmarc: string | null;
  /** The Authentication-Results header mailauth produced (kept for the headers). */
  header: string | null;
}

export interface AuthCheckInput {
  raw: Buffer;
  ip: string | null;
  helo: string | null;
  mailFrom: string;
  mta: string;
  resolver: DNSResolver;
  timeoutMs?: number;
}

/** Names that never resolve in the global DNS (RFC 2606, RFC 6761): answered locally, never sent out. */
const RESERVED_TLD = /\.(test|example|invalid|localhost|local)\.?$/i;
const RESERVED_NAME = /^(example\.(com|net|org)|localhost)\.?$/i;

function notFound(name: string): Error {
  return Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
}

/**
 * The daemon's resolver: node's DNS with a per-query time limit and a small cache, answering reserved
 * names locally so that mail from `*.test` / `*.localhost` senders (tests, local development) is
 * checked without touching the network.
 */
export function createDnsResolver(opts: { timeoutMs?: number; ttlMs?: number; base?: DNSResolver } = {}): DNSResolver {
  const timeoutMs = opts.timeoutMs ?? 2000;
  const ttlMs = opts.ttlMs ?? 5 * 60_000;
  const base: DNSResolver = opts.base ?? ((name, rr) => dnsPromises.resolve(name, rr) as Promise<string[][] | string[]>);
  const cache = new Map<string, { at: number; value: Promise<string[][] | string[]> }>();
  return (name: string, rrtype: string) => {
    const host = name.replace(/\.$/, '').toLowerCase();
    if (RESERVED_TLD.test(host) || RESERVED_NAME.test(host)) return Promise.reject(notFound(name));
    const key = `${rrtype} ${host}`;
    const hit = cache.get(key);
    if (hit && Date.now() - hit.at < ttlMs) return hit.value;
    let timer: NodeJS.Timeout | undefined;
    const value = Promise.race([
      base(host, rrtype),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`DNS ${rrtype} ${host} timed out`), { code: 'ETIMEOUT' })), timeoutMs);
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
    if (cache.size > 10_000) cache.clear();
    cache.set(key, { at: Date.now(), value });
    return value;
  };
}

const verdict = (result: string | undefined): boolean | null =>
  result === undefined || result === 'temperror' ? null : result === 'pass';

/**
 * Check SPF for the connecting IP and MAIL FROM, every DKIM signature, and DMARC alignment.
 * Never throws: a failure of the check itself is "not checked" (null), so mail is never lost to it.
 */
export async function checkAuthentication(input: AuthCheckInput): Promise<AuthOutcome> {
  try {
    let timer: NodeJS.Timeout | undefined;
    const res = await Promise.race([
      authenticate(input.raw, {
        ip: input.ip ?? undefined,
        helo: input.helo ?? undefined,
        sender: input.mailFrom || undefined,
        mta: input.mta,
        resolver: input.resolver,
        disableArc: true,
        disableBimi: true,
      }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('authentication check timed out')), input.timeoutMs ?? 10_000);
        timer.unref();
      }),
    ]).finally(() => clearTimeout(timer));
    const spfResult = input.ip ? (res.spf ? res.spf.status?.result : undefined) : undefined;
    const dkimResults = res.dkim?.results ?? [];
    const dkim = dkimResults.some((r) => r.status?.result === 'pass')
      ? true
      : dkimResults.some((r) => r.status?.result === 'temperror') ? null : false;
    const dmarc = res.dmarc ? (res.dmarc.status?.result ?? null) : null;
    const header = res.headers?.match(/Authentication-Results:[\s\S]*/)?.[0]?.trim() ?? null;
    return { spf: verdict(spfResult), dkim, dmarc, header };
  } catch {
    return { spf: null, dkim: null, dmarc: null, header: null };
  }
}
