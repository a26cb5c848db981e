import { promises as dnsPromises } from 'node:dns';
import { authenticate, type DNSResolver } from 'mailauth';
import ipaddr from 'ipaddr.js';

export type { DNSResolver } from 'mailauth';

/** SPF, DKIM and DMARC of one message (RFC 7208, RFC 6376, RFC 7489). null = not checked / temporary error. */
export interface AuthOutcome {
  spf: boolean | null;
  dkim: boolean | null;
  /** DMARC result word: pass, fail, none, temperror, permerror; null when not evaluated. */
  dmarc: string | null;
  /** The Authentication-Results header mailauth produced (kept for the headers). */
  header: string | null;
  /**
   * The --trusted-networks CIDR the client was in: SPF and DKIM were NOT checked. `spf`/`dkim`
   * are then true for routing and sender reputation only; the stored message says null + this.
   */
  trustedNetwork?: string | null;
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

/**
 * SPF result word → pass (true), failed (false) or neither (null). `none` (no SPF record),
 * `neutral` (the domain asserts nothing) and `temperror` (DNS trouble) are not failures: the
 * spec's "unauthenticated" means SPF and DKIM both *failed* (docs/inbound.md → Authentication).
 */
const verdict = (result: string | undefined): boolean | null =>
  result === undefined || result === 'none' || result === 'neutral' || result === 'temperror' ? null : result === 'pass';

/** Postfix's `mynetworks` default for a local daemon: connections from loopback. */
export const DEFAULT_TRUSTED_NETWORKS = ['127.0.0.0/8', '::1/128'];

/**
 * Answers of trustedNetworkOf per network list and address: every inbound message asks, from the
 * few addresses its clients connect from, and parsing the address and every CIDR each time was
 * ~2% of the main thread's time per message (bench/README.md, round 2 session 5). Capped.
 */
const trustedAnswers = new WeakMap<readonly string[], Map<string, string | null>>();
const TRUSTED_ANSWERS_MAX = 1000;

/** The trusted network (CIDR) an address belongs to, if any (IPv4-mapped IPv6 counts as IPv4). */
export function trustedNetworkOf(ip: string | null, networks: readonly string[]): string | null {
  if (!ip) return null;
  let answers = trustedAnswers.get(networks);
  if (!answers) trustedAnswers.set(networks, (answers = new Map()));
  const known = answers.get(ip);
  if (known !== undefined) return known;
  const answer = matchTrustedNetwork(ip, networks);
  if (answers.size >= TRUSTED_ANSWERS_MAX) answers.clear();
  answers.set(ip, answer);
  return answer;
}

function matchTrustedNetwork(ip: string, networks: readonly string[]): string | null {
  if (!ipaddr.isValid(ip)) return null;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) addr = (addr as ipaddr.IPv6).toIPv4Address();
  for (const cidr of networks) {
    const [range, bits] = ipaddr.parseCIDR(cidr);
    if (range.kind() === addr.kind() && addr.match([range, bits] as never)) return cidr;
  }
  return null;
}

/** Check one CIDR list (config: --trusted-networks); returns the first bad entry, or null. */
export function invalidCidr(networks: readonly string[]): string | null {
  for (const n of networks) {
    try {
      ipaddr.parseCIDR(n);
    } catch {
      return n;
    }
  }
  return null;
}

/**
 * The receiving MTA's own Authentication-Results header (RFC 8601) for mail from a trusted
 * network, prepended to the stored message so the record says why it counts as authenticated.
 */
export function trustedAuthResults(mta: string, ip: string, cidr: string): string {
  return `Authentication-Results: ${mta}; x-trusted-network=pass (client ${ip} is in trusted network ${cidr}; SPF and DKIM not checked) smtp.remote-ip=${ip}`;
}

export function prependHeader(raw: Buffer, header: string): Buffer {
  return Buffer.concat([Buffer.from(header.replace(/[\r\n]+/g, ' ') + '\r\n'), raw]);
}

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
    // No signature at all is DKIM `none`: not a failure (see verdict()).
    const dkim = dkimResults.some((r) => r.status?.result === 'pass')
      ? true
      : !dkimResults.length || dkimResults.some((r) => r.status?.result === 'temperror') || dkimResults.every((r) => r.status?.result === 'none') ? null : false;
    const dmarc = res.dmarc ? (res.dmarc.status?.result ?? null) : null;
    const header = res.headers?.match(/Authentication-Results:[\s\S]*/)?.[0]?.trim() ?? null;
    return { spf: verdict(spfResult), dkim, dmarc, header };
  } catch {
    return { spf: null, dkim: null, dmarc: null, header: null };
  }
}

/**
 * Authenticate one inbound SMTP message. From a trusted network (Postfix's `mynetworks`: the
 * developer's own app on loopback) the mail counts as authenticated without DNS checks, and the
 * stored copy carries an Authentication-Results header saying so; otherwise SPF/DKIM/DMARC run.
 */
export async function authenticateInbound(input: AuthCheckInput & { trustedNetworks?: readonly string[] }): Promise<{ auth: AuthOutcome; raw: Buffer }> {
  const trusted = trustedNetworkOf(input.ip, input.trustedNetworks ?? []);
  if (trusted) {
    const header = trustedAuthResults(input.mta, input.ip!, trusted);
    return { auth: { spf: true, dkim: true, dmarc: null, header, trustedNetwork: trusted }, raw: prependHeader(input.raw, header) };
  }
  return { auth: await checkAuthentication(input), raw: input.raw };
}
