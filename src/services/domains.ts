import { randomBytes } from 'node:crypto';
import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { Domain, DomainCreate, DnsRecord } from '../contract/domains.js';
import type { ListQuery, PageOf } from '../contract/common.js';
import { countAgentsOnDomain, deleteDomain, domainByName, getDomain, insertDomain, listDomains, updateDomain, type DomainRow } from '../db/repos/domains.js';
import { Errors } from '../shared/errors.js';
import { newId, hasPrefix } from '../shared/ids.js';
import { isoAt, SECOND } from '../shared/clock.js';
import { inTransaction, type AppContext, type AuthContext } from './context.js';
import { recordAudit } from './audit-log.js';
import { requireModeFor } from './auth.js';
import { dkimRecordValue, newDkimKey } from './dkim.js';
import { pageOf } from '../db/paginate.js';
import { isPrivateAddress } from './webhook-url-guard.js';

/** TXT lookups, injectable so tests run offline: each record's strings, as node:dns answers. */
export type TxtResolver = (name: string) => Promise<string[][]>;

const DNS_TIMEOUT_MS = 5 * SECOND;

const systemResolver: TxtResolver = async (name) => {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      dns.resolveTxt(name),
      new Promise<never>((_, reject) => { timer = setTimeout(() => reject(Object.assign(new Error('DNS timeout'), { code: 'ETIMEOUT' })), DNS_TIMEOUT_MS); }),
    ]);
  } catch (err) {
    // No such name or no TXT record: the record is missing, not a failure of the lookup.
    if (['ENOTFOUND', 'ENODATA', 'ENONAME'].includes((err as { code?: string }).code ?? '')) return [];
    throw err;
  } finally {
    if (timer) clearTimeout(timer);
  }
};

const resolvers = new WeakMap<AppContext, TxtResolver>();
export function setTxtResolver(ctx: AppContext, r: TxtResolver): void {
  resolvers.set(ctx, r);
}
const resolverOf = (ctx: AppContext) => resolvers.get(ctx) ?? systemResolver;

const DOMAIN_RE = /^(?=.{3,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;
const DKIM_SELECTOR = 'mailagent';
type RecordStatus = DnsRecord['status'];
type Statuses = Record<DnsRecord['purpose'], RecordStatus>;

function requireEnabled(ctx: AppContext): void {
  if (!ctx.config.customDomains) {
    throw Errors.featureDisabled('Custom sending domains are switched off on this server (config `customDomains`).');
  }
}

/**
 * Relay providers that send from many addresses and publish one SPF record naming them all (each
 * provider's own setup page): their submission host's `a:` would authorise only the host clients
 * connect to, not the addresses mail leaves from. Matched on the relay host or a parent of it.
 */
const RELAY_SPF_INCLUDES: [suffix: string, include: string][] = [
  ['sendgrid.net', 'sendgrid.net'],
  ['amazonaws.com', 'amazonses.com'],
  ['mailgun.org', 'mailgun.org'],
  ['postmarkapp.com', 'spf.mtasv.net'],
  ['gmail.com', '_spf.google.com'],
  ['google.com', '_spf.google.com'],
  ['office365.com', 'spf.protection.outlook.com'],
  ['outlook.com', 'spf.protection.outlook.com'],
  ['mailjet.com', 'spf.mailjet.com'],
  ['sparkpostmail.com', 'sparkpostmail.com'],
];

/** A host name or address nobody on the internet can reach (loopback, private, `*.localhost`, `*.local`, `*.internal`). */
function offInternet(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isIP(h)) return isPrivateAddress(h);
  return !h.includes('.') || /(^|\.)(localhost|local|internal)$/.test(h);
}

const spfMechanism = (host: string): string => (isIP(host) === 4 ? `ip4:${host}` : isIP(host) === 6 ? `ip6:${host}` : `a:${host}`);

/**
 * The SPF record to publish: it must name where this server's mail reaches the internet from —
 * the relay (its provider's `include:` when it is a known one, else its host), or without a relay
 * this daemon's public host. A host off the internet (the default 127.0.0.1) authorises nothing
 * any receiver sees, so it is never suggested: `v=spf1 ~all` then, with a note saying why the
 * record cannot be right yet and what to configure (docs/resources.md → Domains).
 */
export function spfRecord(config: { relayUrl: string | null; publicUrl: string }): { value: string; note: string | null } {
  const relay = config.relayUrl ? new URL(config.relayUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '') : null;
  if (relay && !offInternet(relay)) {
    const known = RELAY_SPF_INCLUDES.find(([suffix]) => relay === suffix || relay.endsWith('.' + suffix));
    if (known) return { value: `v=spf1 include:${known[1]} ~all`, note: `The SPF record ${relay}'s provider publishes for the addresses it sends from.` };
    return { value: `v=spf1 ${spfMechanism(relay)} ~all`, note: `Authorises the address of the relay ${relay}. If the relay provider sends from other addresses and publishes an SPF record for them (most do: an include: in its setup guide), use that instead.` };
  }
  const pub = new URL(config.publicUrl).hostname.toLowerCase().replace(/^\[|\]$/g, '');
  const why = relay
    ? `The relay ${relay} is not on the internet (it hands mail on from this machine)`
    : 'No relay is configured, so live mail to outside addresses is not sent (503 upstream_unavailable)';
  if (!offInternet(pub)) {
    return { value: `v=spf1 ${spfMechanism(pub)} ~all`, note: `${why}; this names the host of the public URL (${pub}). If mail leaves this server from another address, name that address instead.` };
  }
  return {
    value: 'v=spf1 ~all',
    note: `This cannot be right yet: ${why.charAt(0).toLowerCase() + why.slice(1)}, and the public URL's host (${pub}) is not on the internet, so there is no sending host to name (a loopback address authorises nothing a receiver sees). Configure the relay (--relay) or a public URL on this machine's internet name (--public-url), then read this record again.`,
  };
}

function records(ctx: AppContext, r: DomainRow): DnsRecord[] {
  const st = JSON.parse(r.records_status) as Statuses;
  return [
    { purpose: 'verification', type: 'TXT', name: `_mailagent.${r.domain}`, value: `mailagent-verification=${r.verification_token}`, status: st.verification },
    { purpose: 'spf', type: 'TXT', name: r.domain, ...spfRecord(ctx.config), status: st.spf },
    { purpose: 'dkim', type: 'TXT', name: `${r.dkim_selector}._domainkey.${r.domain}`, value: dkimRecordValue(r.dkim_public_key), status: st.dkim },
  ];
}

export function toDomain(ctx: AppContext, r: DomainRow): Domain {
  return {
    id: r.id, object: 'domain', domain: r.domain, status: r.status as Domain['status'], records: records(ctx, r),
    dkim_selector: r.dkim_selector, verified_at: r.verified_at, last_checked_at: r.last_checked_at, last_error: r.last_error,
    created_at: r.created_at,
  };
}

export function normalizeDomainName(raw: string, param = 'domain'): string {
  const d = raw.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN_RE.test(d)) throw Errors.invalidParam(param, `"${raw}" is not a domain name (for example mail.example.com).`);
  return d;
}

export async function addDomain(ctx: AppContext, auth: AuthContext, body: DomainCreate): Promise<Domain> {
  requireEnabled(ctx);
  const domain = normalizeDomainName(body.domain);
  const own = ctx.config.agentDomain;
  if (domain === own || domain.endsWith(`.${own}`)) {
    throw Errors.invalidParam('domain', `${domain} belongs to this service's own agent domain; add a domain you control.`);
  }
  if (await domainByName(ctx.db, domain)) throw Errors.duplicate(`The domain ${domain} has already been added.`);
  const key = await newDkimKey();
  const at = isoAt(ctx.clock.now());
  const row: DomainRow = {
    id: newId('dom', ctx.clock), workspace_id: auth.workspaceId, domain, status: 'pending',
    verification_token: randomBytes(16).toString('hex'), dkim_selector: DKIM_SELECTOR,
    dkim_private_key: key.privateKeyPem, dkim_public_key: key.publicKeyB64,
    records_status: JSON.stringify({ verification: 'pending', spf: 'pending', dkim: 'pending' } satisfies Statuses),
    verified_at: null, last_checked_at: null, last_error: null, created_at: at, updated_at: at, mode: auth.mode,
  };
  return inTransaction(ctx, async (tx) => {
    if (await domainByName(tx.db, domain)) throw Errors.duplicate(`The domain ${domain} has already been added.`);
    await insertDomain(tx.db, row);
    await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'domain', action: 'domain.added', targetId: row.id, metadata: { domain } });
    return toDomain(ctx, row);
  });
}

async function requireDomain(ctx: AppContext, auth: AuthContext, ref: string): Promise<DomainRow> {
  const r = hasPrefix(ref, 'dom') ? await getDomain(ctx.db, auth.workspaceId, ref) : await domainByName(ctx.db, ref.trim().toLowerCase());
  if (!r || r.workspace_id !== auth.workspaceId) throw Errors.notFound('domain', ref);
  return r;
}

export async function listDomainsPage(ctx: AppContext, auth: AuthContext, q: ListQuery): Promise<PageOf<Domain>> {
  requireEnabled(ctx);
  const res = await listDomains(ctx.db, auth.workspaceId, q);
  return pageOf(res, res.rows.map((r) => toDomain(ctx, r)));
}

export async function getDomainView(ctx: AppContext, auth: AuthContext, ref: string): Promise<Domain> {
  requireEnabled(ctx);
  return toDomain(ctx, await requireDomain(ctx, auth, ref));
}

/** TXT records as strings: a record split into several strings is joined (RFC 7208 §3.3). */
const joined = (txt: string[][]) => txt.map((parts) => parts.join(''));
const squash = (s: string) => s.replace(/\s+/g, '');

/**
 * Look the three records up now. The domain is verified when the verification TXT matches, an SPF
 * record exists (its content is the owner's: it may list other senders too) and the DKIM key
 * published matches ours. A lookup error leaves the statuses as they were and records last_error.
 */
export async function verifyDomain(ctx: AppContext, auth: AuthContext, ref: string): Promise<Domain> {
  requireEnabled(ctx);
  const r = await requireDomain(ctx, auth, ref);
  // A check that fails marks the domain failed, and live agents on it stop sending.
  requireModeFor(auth, r.mode, `verify sending domain ${r.domain}, which a live key added (a failed check would stop live sending from it)`);
  const resolve = resolverOf(ctx);
  const recs = records(ctx, r);
  const at = isoAt(ctx.clock.now());
  let st: Statuses;
  let lastError: string | null = null;
  try {
    const [ver, spf, dkim] = await Promise.all(recs.map((x) => resolve(x.name).then(joined)));
    const verification: RecordStatus = ver.includes(recs[0].value) ? 'verified' : ver.some((v) => v.startsWith('mailagent-verification=')) ? 'mismatch' : 'missing';
    const spfRecs = spf.filter((v) => /^v=spf1(\s|$)/i.test(v.trim()));
    const spfStatus: RecordStatus = spfRecs.length === 1 ? 'verified' : spfRecs.length > 1 ? 'mismatch' : 'missing';
    const wantKey = r.dkim_public_key;
    const keys = dkim.map((v) => /(?:^|;)\s*p=([^;]*)/.exec(v)?.[1]).filter((k): k is string => k !== undefined).map(squash);
    const dkimStatus: RecordStatus = keys.includes(wantKey) ? 'verified' : keys.length ? 'mismatch' : 'missing';
    st = { verification, spf: spfStatus, dkim: dkimStatus };
  } catch (err) {
    st = JSON.parse(r.records_status) as Statuses;
    lastError = `DNS lookup failed: ${(err as { code?: string }).code ?? (err as Error).message}`;
  }
  const ok = st.verification === 'verified' && st.spf === 'verified' && st.dkim === 'verified';
  // Once verified a domain stays usable through a transient lookup failure.
  const status = ok ? 'verified' : lastError && r.status === 'verified' ? 'verified' : 'failed';
  if (!ok && !lastError) {
    const bad = recs.filter((x) => st[x.purpose] !== 'verified').map((x) => `${x.purpose} record at ${x.name} is ${st[x.purpose]}`);
    lastError = bad.join('; ');
  }
  const patch: Partial<DomainRow> = {
    status, records_status: JSON.stringify(st), last_checked_at: at, last_error: ok ? null : lastError, updated_at: at,
    verified_at: ok ? (r.verified_at ?? at) : status === 'verified' ? r.verified_at : null,
  };
  await inTransaction(ctx, async (tx) => {
    await updateDomain(tx.db, r.id, patch);
    if (status !== r.status) {
      await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'domain', action: ok ? 'domain.verified' : 'domain.verification_failed', targetId: r.id, metadata: { domain: r.domain, records: st } });
    }
  });
  return toDomain(ctx, { ...r, ...patch });
}

export async function removeDomain(ctx: AppContext, auth: AuthContext, ref: string): Promise<{ id: string; deleted_at: string }> {
  requireEnabled(ctx);
  const r = await requireDomain(ctx, auth, ref);
  requireModeFor(auth, r.mode, `remove sending domain ${r.domain}, which a live key added`);
  const at = isoAt(ctx.clock.now());
  return inTransaction(ctx, async (tx) => {
    const n = await countAgentsOnDomain(tx.db, auth.workspaceId, r.domain);
    if (n) throw Errors.duplicate(`${n} live agent${n === 1 ? '' : 's'} still send from ${r.domain}; archive ${n === 1 ? 'it' : 'them'} before removing the domain.`);
    await deleteDomain(tx.db, r.id);
    await recordAudit(ctx, tx.db, { workspaceId: auth.workspaceId, keyId: auth.keyId, category: 'domain', action: 'domain.removed', targetId: r.id, metadata: { domain: r.domain } });
    return { id: r.id, deleted_at: at };
  });
}

/** For agents.create with `domain`: the workspace's verified custom domain, or domain_not_verified. */
export async function requireVerifiedDomain(ctx: AppContext, workspaceId: string, raw: string): Promise<string> {
  requireEnabled(ctx);
  const domain = normalizeDomainName(raw);
  const r = await domainByName(ctx.db, domain);
  if (!r || r.workspace_id !== workspaceId || r.status !== 'verified') throw Errors.domainNotVerified(domain);
  return domain;
}
