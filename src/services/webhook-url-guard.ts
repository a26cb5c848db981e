import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
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
const blocked4 = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // CGNAT, RFC 6598 (also Alibaba's metadata 100.100.100.200)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata 169.254.169.254
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) blocked4.addSubnet(net, prefix, 'ipv4');

const blocked6 = new BlockList();
for (const [net, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['100::', 64], // discard
  ['2001::', 32], // Teredo (tunnels to arbitrary IPv4)
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (AWS metadata fd00:ec2::254 too)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) blocked6.addSubnet(net, prefix, 'ipv6');

/** Expand an IPv6 literal to its 8 groups (numbers), or null. */
function ipv6Groups(addr: string): number[] | null {
  let a = addr.toLowerCase().replace(/^\[|\]$/g, '');
  const zone = a.indexOf('%');
  if (zone >= 0) a = a.slice(0, zone);
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (v4) {
    const p = v4[1].split('.').map(Number);
    a = a.slice(0, -v4[1].length) + ((p[0] << 8) | p[1]).toString(16) + ':' + ((p[2] << 8) | p[3]).toString(16);
  }
  const halves = a.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const fill = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array(Math.max(fill, 0)).fill('0'), ...tail].map((g) => parseInt(g, 16));
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const v4From = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;

/** The IPv4 address an IPv6 address carries, for the forms that route to it. */
function embeddedIpv4(g: number[]): string | null {
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(5) && g[5] === 0xffff) return v4From(g[6], g[7]); // ::ffff:a.b.c.d (mapped)
  if (zeros(6) && (g[6] !== 0 || g[7] > 1)) return v4From(g[6], g[7]); // ::a.b.c.d (compatible)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return v4From(g[6], g[7]); // NAT64
  if (g[0] === 0x2002) return v4From(g[1], g[2]); // 6to4
  return null;
}

/** Is this IP address (v4 or v6, any textual form Node accepts) private, loopback, link-local or reserved? */
export function isPrivateAddress(address: string): boolean {
  const a = address.replace(/^\[|\]$/g, '');
  const family = isIP(a);
  if (family === 4) return blocked4.check(a, 'ipv4');
  if (family === 6) {
    const g = ipv6Groups(a);
    if (!g) return true;
    const v4 = embeddedIpv4(g);
    if (v4) return blocked4.check(v4, 'ipv4');
    const canonical = g.map((x) => x.toString(16)).join(':');
    return blocked6.check(canonical, 'ipv6');
  }
  return true; // not an address at all: refuse rather than guess
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
