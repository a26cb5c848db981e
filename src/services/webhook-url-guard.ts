import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { Errors } from '../shared/errors.js';

/**
 * SSRF guard for webhook URLs (issue: "refused at creation and again at connection time").
 *
 * Spellings: the WHATWG URL parser already turns every IPv4 spelling a browser or curl accepts
 * (decimal `2130706433`, hex `0x7f000001`, octal `0177.0.0.1`, short `127.1`) into dotted form,
 * and IPv6 literals into their compressed form, so we classify `URL.hostname`, never the raw text.
 * IPv6 forms that embed an IPv4 address (mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4
 * `2002::/16`, the deprecated compatible `::a.b.c.d`) are judged by the embedded address.
 *
 * At connection time the delivery resolves the name itself, checks EVERY address, and connects
 * to the address it checked (a custom `lookup`), so a DNS answer cannot change between the
 * check and the connect (DNS rebinding).
 */
// Address classification is ipaddr.js's (its special-purpose ranges follow the IANA registries),
// not a hand-kept list: a hand-written list missed ::ffff:0:0:0/96 (IPv4-translated, RFC 6145)
// and 64:ff9b:1::/48 (local-use NAT64, RFC 8215). Only `unicast` (globally routable) passes.
// IPv6 forms that carry an IPv4 address which a gateway may route to are judged by that address
// as well: mapped, translated, NAT64 (well-known prefix), 6to4. Teredo and the local-use NAT64
// prefix are refused outright (the embedded address is obfuscated, or the prefix is local).
function embeddedIpv4(a: ipaddr.IPv6, range: string): ipaddr.IPv4 | null {
  const p = a.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return v4(p[6], p[7]);
    case '6to4': // 2002:AABB:CCDD::/48
      return v4(p[1], p[2]);
    case 'rfc6052': // 64:ff9b::/96 only; 64:ff9b:1::/48 is local-use and refused below
      return p[2] === 0 ? v4(p[6], p[7]) : null;
  }
  // The deprecated IPv4-compatible form ::a.b.c.d (ipaddr.js files it under `reserved`).
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7] > 1)) return v4(p[6], p[7]);
  return null;
}

// Cloud instance-metadata endpoints (AWS/GCP/Azure/OpenStack 169.254.169.254, AWS ECS task
// metadata 169.254.170.2, Alibaba 100.100.100.200, AWS IPv6 fd00:ec2::254). They hand out
// credentials to whoever on the instance asks, so no webhook may reach them, even on a daemon
// that allows private targets for local development.
const METADATA = new Set(['169.254.169.254', '169.254.170.2', '100.100.100.200', 'fd00:ec2::254'].map((a) => ipaddr.parse(a).toString()));

/** Is this address (any form ipaddr.js reads; IPv4 inside IPv6 judged by the IPv4) a metadata endpoint? */
export function isMetadataAddress(addr: string): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(addr.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    const v4 = embeddedIpv4(v6, v6.range());
    if (v4) return METADATA.has(v4.toString());
  }
  return METADATA.has(parsed.toString());
}

/** Is this IP address (v4 or v6, any textual form Node accepts) private, loopback, link-local or reserved? */
export function isPrivateAddress(address: string): boolean {
  let a = address.replace(/^\[|\]$/g, '');
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  if (!isIP(a)) return true; // not an address at all: refuse rather than guess
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(a);
  } catch {
    return true;
  }
  if (parsed.kind() === 'ipv4') return parsed.range() !== 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  const v4 = embeddedIpv4(v6, range);
  if (v4) return v4.range() !== 'unicast';
  return range !== 'unicast';
}

/** Names that always mean this machine or a private network, whatever DNS says. */
function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal')
    || h === 'metadata' || h === 'metadata.google.internal';
}

export type Resolver = (host: string) => Promise<string[]>;

export const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) => {
    dnsLookup(host, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs.map((a) => a.address))));
  });

// A daemon (or a test: never the internet) may replace DNS resolution for webhook hosts.
const resolvers = new WeakMap<object, Resolver>();
export function setWebhookResolver(ctx: object, r: Resolver): void {
  resolvers.set(ctx, r);
}
export function resolverFor(ctx: object): Resolver {
  return resolvers.get(ctx) ?? systemResolver;
}

export interface GuardOptions {
  allowPrivate: boolean;
  resolver?: Resolver;
  /** Bound on the creation-time lookup (ms). */
  resolveTimeoutMs?: number;
}

export interface ParsedWebhookUrl {
  url: URL;
  /** The hostname without IPv6 brackets. */
  host: string;
  /** Set when the hostname is an IP literal. */
  literal: string | null;
}

function refuse(message: string): never {
  throw Errors.invalidParam('url', message);
}

/** Syntax and scheme checks shared by creation and connection. */
export function parseWebhookUrl(raw: string): ParsedWebhookUrl {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    refuse(`"${raw}" is not an absolute URL; use https://host/path.`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse(`The webhook URL must use https:// (or http:// to an allowed private address), not ${url.protocol}//.`);
  if (!url.hostname) refuse('The webhook URL has no host.');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return { url, host, literal: isIP(host) ? host : null };
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const t = setTimeout(() => reject(new Error('DNS lookup timed out')), ms);
    t.unref?.();
    p.then((v) => { clearTimeout(t); resolve(v); }, (e) => { clearTimeout(t); reject(e); });
  });
}

/**
 * The rule, given the addresses a URL reaches: private addresses only when the daemon allows
 * them; plain http only to (allowed) private addresses; never a mix of private and public.
 * Returns an error text, or null when the URL may be used.
 */
export function judgeAddresses(scheme: string, host: string, addresses: string[], allowPrivate: boolean): string | null {
  if (!addresses.length) return `${host} does not resolve to any address.`;
  const meta = addresses.find(isMetadataAddress);
  if (meta) return `${host} resolves to ${meta}, a cloud instance-metadata address; webhooks never target it (not even with --allow-private-webhooks).`;
  const priv = addresses.filter(isPrivateAddress);
  if (priv.length && !allowPrivate) {
    return `${host} resolves to a private, loopback, link-local or reserved address (${priv[0]}); webhooks may not target those on this daemon (serve --allow-private-webhooks).`;
  }
  if (scheme === 'http:' && priv.length !== addresses.length) {
    return 'Plain http:// is allowed only to private addresses on a daemon that allows them; use https://.';
  }
  return null;
}

/** Creation-time check (400 invalid_param_value, param url). */
export async function checkWebhookUrl(raw: string, opts: GuardOptions): Promise<URL> {
  const p = parseWebhookUrl(raw);
  if (p.url.username || p.url.password) refuse('The webhook URL may not contain user:password@ (it would be stored and shown); put a token in the path or query instead.');
  if (p.literal) {
    const why = judgeAddresses(p.url.protocol, p.host, [p.literal], opts.allowPrivate);
    if (why) refuse(why);
    return p.url;
  }
  if (isLocalName(p.host)) {
    if (!opts.allowPrivate) refuse(`${p.host} names this machine or a private network; webhooks may not target those on this daemon (serve --allow-private-webhooks).`);
    return p.url;
  }
  let addrs: string[] | null = null;
  try {
    addrs = await withTimeout((opts.resolver ?? systemResolver)(p.host), opts.resolveTimeoutMs ?? 3000);
  } catch {
    addrs = null; // offline or not yet in DNS: the connection-time check decides
  }
  if (addrs === null) {
    if (p.url.protocol === 'http:') refuse(`${p.host} does not resolve, so it cannot be shown to be a private address; plain http:// is allowed only to private addresses. Use https://.`);
    return p.url;
  }
  const why = judgeAddresses(p.url.protocol, p.host, addrs, opts.allowPrivate);
  if (why) refuse(why);
  return p.url;
}

/**
 * A `lookup` for http(s).request that resolves, checks every address against the rule, and
 * hands the socket exactly the address it checked. An IP literal is checked without DNS.
 */
export function guardedLookup(scheme: string, opts: GuardOptions): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const host = hostname.replace(/^\[|\]$/g, '');
    const done = (addrs: string[]) => {
      const why = isLocalName(host) && !opts.allowPrivate
        ? `${host} names this machine or a private network`
        : judgeAddresses(scheme, host, addrs, opts.allowPrivate);
      if (why) return callback(Object.assign(new Error(why), { code: 'EWEBHOOKBLOCKED' }));
      const list = addrs.map((address) => ({ address, family: isIP(address) }));
      if (options?.all) callback(null, list);
      else callback(null, list[0].address, list[0].family);
    };
    if (isIP(host)) return done([host]);
    (opts.resolver ?? systemResolver)(host).then(done, (err: Error) => callback(err));
  }) as unknown as LookupFunction;
}
