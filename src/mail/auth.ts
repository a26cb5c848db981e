import { promises as dnsPromises } from 'node:dns';
import type { DNSResolver } from 'mailauth';
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
 * One DNS answer as a round of the check replays it (mail/auth-check.ts): the resolver's value, or
 * its error's code and message (mailauth tells "no such record" from "try later" by the code).
 */
export type DnsAnswer = { value: string[][] | string[] } | { code: string; message: string };

/** A round of the check: the message, its envelope and every DNS answer gathered so far. */
export interface AuthRoundInput {
  raw: Uint8Array;
  ip: string | null;
  helo: string | null;
  mailFrom: string;
  mta: string;
  /** By dnsKey(name, rrtype). */
  answers: Record<string, DnsAnswer>;
}

/** What a round found: the outcome, or the questions it could not answer yet. */
export type AuthRound = { outcome: AuthOutcome } | { need: { name: string; rrtype: string }[] };

/** How a round runs one check (the pipeline's pool, or inline: services/message-work.ts). */
export type AuthRoundRunner = (input: AuthRoundInput) => Promise<AuthRound>;

export const dnsKey = (name: string, rrtype: string): string => `${rrtype} ${name.replace(/\.$/, '').toLowerCase()}`;

/**
 * Rounds of one check at most: SPF allows 10 DNS-querying terms (RFC 7208 §4.6.4), each found only
 * once the record that names it is answered; DKIM keys and DMARC's record come in the first rounds.
 */
export const MAX_AUTH_ROUNDS = 16;
/** Questions one round may add at most (a message with hundreds of DKIM signatures asks no more). */
const MAX_QUESTIONS_PER_ROUND = 32;

/**
 * DNS names a message from a sender domain needed last time, so the next message from it gets
 * their answers (from the resolver's cache) in its first round instead of one round per SPF level.
 */
const askedBefore = new Map<string, { name: string; rrtype: string }[]>();
const ASKED_BEFORE_MAX = 1000;

/** Above this, the rounds of a check share one copy of the message (authenticateInRounds). */
const SHARE_ABOVE_BYTES = 64 * 1024;

const NOT_CHECKED: AuthOutcome = { spf: null, dkim: null, dmarc: null, header: null };

/**
 * Check SPF for the connecting IP and MAIL FROM, every DKIM signature, and DMARC alignment, in
 * rounds: `run` does the CPU work (mailauth: DKIM's body hash, the signatures) where it is given
 * to, with no network (the pipeline's workers); the questions a round could not answer are asked
 * here, through `input.resolver` (injectable: tests run offline), concurrently, and the next round
 * runs with every answer so far, until a round needs nothing new. So a worker never waits for DNS,
 * and the main thread never loads mailauth or hashes a body. Never throws: a failure of the check
 * (a round past the pipeline's budget, more than MAX_AUTH_ROUNDS rounds, past `timeoutMs` in all)
 * is "not checked" (null), so mail is never lost to it.
 */
export async function authenticateInRounds(input: AuthCheckInput, run: AuthRoundRunner): Promise<AuthOutcome> {
  const deadline = Date.now() + (input.timeoutMs ?? 10_000);
  const answers: Record<string, DnsAnswer> = {};
  const domain = (input.mailFrom.split('@')[1] ?? input.helo ?? '').toLowerCase();
  const asked: { name: string; rrtype: string }[] = [];
  const ask = async (questions: { name: string; rrtype: string }[]): Promise<boolean> => {
    const fresh = questions.filter((q) => !answers[dnsKey(q.name, q.rrtype)]).slice(0, MAX_QUESTIONS_PER_ROUND);
    if (!fresh.length) return false;
    let timer: NodeJS.Timeout | undefined;
    const left = deadline - Date.now();
    if (left <= 0) return false;
    const all = Promise.all(fresh.map(async (q) => {
      let a: DnsAnswer;
      try {
        a = { value: await input.resolver(q.name, q.rrtype) };
      } catch (err) {
        const e = err as { code?: unknown; message?: unknown };
        a = { code: typeof e.code === 'string' ? e.code : 'ESERVFAIL', message: String(e.message ?? err) };
      }
      answers[dnsKey(q.name, q.rrtype)] = a;
      asked.push(q);
    }));
    const out = await Promise.race([all.then(() => true), new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), left);
      timer.unref();
    })]).finally(() => clearTimeout(timer));
    return out;
  };
  // A large message is copied once into shared memory: each round's job then carries a view of it
  // instead of a copy of its bytes made on this thread (structured clone shares a SharedArrayBuffer).
  const raw = input.raw.length > SHARE_ABOVE_BYTES ? new Uint8Array(new SharedArrayBuffer(input.raw.length)) : input.raw;
  if (raw !== input.raw) raw.set(input.raw);
  try {
    const before = domain ? askedBefore.get(domain) : undefined;
    if (before) await ask(before);
    for (let round = 0; round < MAX_AUTH_ROUNDS && Date.now() < deadline; round++) {
      const r = await run({ raw, ip: input.ip, helo: input.helo, mailFrom: input.mailFrom, mta: input.mta, answers });
      if ('outcome' in r) {
        if (domain && asked.length) {
          if (askedBefore.size >= ASKED_BEFORE_MAX) askedBefore.clear();
          askedBefore.set(domain, asked.slice(0, MAX_QUESTIONS_PER_ROUND * 2));
        }
        return r.outcome;
      }
      if (!(await ask(r.need))) return NOT_CHECKED;
    }
    return NOT_CHECKED;
  } catch {
    return NOT_CHECKED;
  }
}

/**
 * Authenticate one inbound SMTP message. From a trusted network (Postfix's `mynetworks`: the
 * developer's own app on loopback) the mail counts as authenticated without DNS checks, and the
 * stored copy carries an Authentication-Results header saying so; otherwise SPF/DKIM/DMARC run.
 */
export async function authenticateInbound(
  input: AuthCheckInput & { trustedNetworks?: readonly string[] }, check: (input: AuthCheckInput) => Promise<AuthOutcome>,
): Promise<{ auth: AuthOutcome; raw: Buffer }> {
  const trusted = trustedNetworkOf(input.ip, input.trustedNetworks ?? []);
  if (trusted) {
    const header = trustedAuthResults(input.mta, input.ip!, trusted);
    return { auth: { spf: true, dkim: true, dmarc: null, header, trustedNetwork: trusted }, raw: prependHeader(input.raw, header) };
  }
  return { auth: await check(input), raw: input.raw };
}
