import {
  countOverLimitRecordsSince, countPlusAddressesReachedSince, countPlusAddressesSince, plusAddressLastReceived, touchPlusAddress,
} from '../db/repos/received.js';
import type { Db } from '../db/schema.js';
import { capsFor } from '../shared/tiers.js';
import { DAY, HOUR, isoAt } from '../shared/clock.js';
import { extractEntities } from '../classifier/entities.js';
import { bareAddress, bareDomain } from '../mail/address.js';

/**
 * Spec: Limits → Plus addresses. Distinct plus addresses receiving mail per workspace in any
 * 24 hours (Free 20, Pro 1,000, Scale 10,000); an address that received mail in the window keeps
 * receiving. Over-limit and held-code records share a cap of 20 records per hour per workspace.
 */
export const PLUS_WINDOW_MS = DAY;
export const RECORD_CAP_PER_HOUR = 20;

/** `name+tag@domain` → `{ base: 'name@domain', tag: 'tag' }`; plain addresses have tag null. */
export function splitPlus(address: string): { base: string; tag: string | null; local: string; domain: string } | null {
  // The domain bare (mail/address.ts): `agent@example.com.` routes, trusts and counts as agent@example.com.
  const a = bareAddress(address.toLowerCase());
  const at = a.lastIndexOf('@');
  if (at <= 0 || at === a.length - 1) return null;
  const local = a.slice(0, at);
  const domain = a.slice(at + 1);
  const plus = local.indexOf('+');
  if (plus === -1) return { base: a, tag: null, local, domain };
  if (plus === 0) return null;
  return { base: `${local.slice(0, plus)}@${domain}`, tag: local.slice(plus + 1), local, domain };
}

/**
 * `over_limit`: the workspace's limit is used up (the spec's figure). `over_share`: the workspace
 * has room, but the unauthenticated sender's share of it is used up (docs/inbound.md → Plus
 * addresses: "Shares"); `why` says which share, in the words the SMTP reply uses.
 */
export type PlusDecision = 'ok' | 'over_limit' | { over_share: string };

/**
 * Who would open a new plus address: the shares bound only mail no one vouches for (the sender's
 * trust is not `authenticated`, services/sender-trust.ts), so that strangers cannot use up the
 * workspace's new plus addresses for the senders it signed up with.
 */
export interface PlusOpener { unauthenticated: boolean; fromDomain: string }

/**
 * The shares of the spec's limit (docs/inbound.md → Plus addresses): unauthenticated mail from one
 * From domain may open a quarter of it in the window, all unauthenticated mail together half of it
 * (Free 5 and 10 of 20); authenticated senders (a DMARC pass, an SPF pass aligned with the From, a
 * trusted network, an agent of this server) have the whole limit.
 */
export function plusShares(tier: string): { perDomain: number; unauthenticated: number } {
  const limit = capsFor(tier).plusAddressesPerDay;
  return { perDomain: Math.ceil(limit / 4), unauthenticated: Math.ceil(limit / 2) };
}

/**
 * May `address` (a plus address) receive now? Reads only; `admitPlusAddress` records the delivery.
 * Without `opener` (a wait asking about an address) only the workspace's limit is read.
 */
export async function plusAddressDecision(db: Db, workspaceId: string, tier: string, address: string, now: number, opener?: PlusOpener): Promise<PlusDecision> {
  const since = isoAt(now - PLUS_WINDOW_MS);
  const last = await plusAddressLastReceived(db, workspaceId, address);
  if (last && last > since) return 'ok';
  const used = await countPlusAddressesSince(db, workspaceId, since);
  if (used >= capsFor(tier).plusAddressesPerDay) return 'over_limit';
  if (!opener?.unauthenticated) return 'ok';
  const share = plusShares(tier);
  const domain = opener.fromDomain || '(no domain)';
  if ((await countPlusAddressesReachedSince(db, workspaceId, since, { fromDomain: opener.fromDomain })) >= share.perDomain) {
    return { over_share: `unauthenticated mail from ${domain} has reached its share of ${share.perDomain} new plus addresses in 24 hours; mail that passes SPF or DKIM for its From domain is not bound by the share` };
  }
  if ((await countPlusAddressesReachedSince(db, workspaceId, since, { unverified: true })) >= share.unauthenticated) {
    return { over_share: `unauthenticated mail has reached its share of ${share.unauthenticated} of the workspace's new plus addresses in 24 hours; mail that passes SPF or DKIM for its From domain is not bound by the share` };
  }
  return 'ok';
}

export async function admitPlusAddress(db: Db, workspaceId: string, address: string, now: number): Promise<void> {
  await touchPlusAddress(db, workspaceId, address, isoAt(now));
}

/** Room for one more over-limit / held-code record this hour? */
export async function recordCapLeft(db: Db, workspaceId: string, now: number): Promise<boolean> {
  return (await countOverLimitRecordsSince(db, workspaceId, isoAt(now - HOUR))) < RECORD_CAP_PER_HOUR;
}

/**
 * Large account providers, payment apps and banks (spec: "sign-in codes and verify, sign-in or
 * password-reset links ... are not delivered to plus addresses"). Matched on the From domain or
 * any parent domain of it (accounts.google.com → google.com).
 */
const PROVIDER_DOMAINS = new Set([
  // account providers
  'google.com', 'gmail.com', 'youtube.com', 'microsoft.com', 'live.com', 'outlook.com', 'office.com', 'apple.com',
  'icloud.com', 'amazon.com', 'amazon.co.uk', 'amazon.de', 'aws.amazon.com', 'facebook.com', 'facebookmail.com',
  'meta.com', 'instagram.com', 'whatsapp.com', 'x.com', 'twitter.com', 'linkedin.com', 'github.com', 'gitlab.com',
  'yahoo.com', 'yahoo-inc.com', 'discord.com', 'slack.com', 'dropbox.com', 'zoom.us', 'tiktok.com', 'snapchat.com',
  'reddit.com', 'netflix.com', 'spotify.com', 'uber.com', 'airbnb.com', 'okta.com', 'auth0.com', 'atlassian.com',
  'salesforce.com', 'adobe.com', 'openai.com', 'steampowered.com', 'epicgames.com', 'booking.com', 'ebay.com',
  // payment apps
  'paypal.com', 'paypal.co.uk', 'venmo.com', 'stripe.com', 'squareup.com', 'cash.app', 'wise.com', 'transferwise.com',
  'revolut.com', 'klarna.com', 'affirm.com', 'coinbase.com', 'zellepay.com', 'payoneer.com', 'skrill.com', 'n26.com',
  'monzo.com', 'chime.com', 'robinhood.com', 'alipay.com', 'wechat.com', 'mercadopago.com', 'paytm.com', 'adyen.com',
  // banks
  'chase.com', 'jpmorgan.com', 'bankofamerica.com', 'bofa.com', 'wellsfargo.com', 'citi.com', 'citibank.com',
  'capitalone.com', 'usbank.com', 'pnc.com', 'americanexpress.com', 'aexp.com', 'discover.com', 'schwab.com',
  'fidelity.com', 'hsbc.com', 'hsbc.co.uk', 'barclays.com', 'barclays.co.uk', 'lloydsbank.com', 'natwest.com',
  'santander.com', 'santander.co.uk', 'bnpparibas.com', 'societegenerale.fr', 'deutsche-bank.de', 'db.com',
  'commerzbank.de', 'ing.com', 'ing.nl', 'abnamro.nl', 'rabobank.nl', 'ubs.com', 'credit-suisse.com', 'rbc.com',
  'td.com', 'scotiabank.com', 'bmo.com', 'cibc.com', 'commbank.com.au', 'westpac.com.au', 'anz.com', 'nab.com.au',
  'sbi.co.in', 'hdfcbank.com', 'icicibank.com', 'dbs.com', 'ocbc.com', 'mufg.jp', 'smbc.co.jp', 'nordea.com',
]);

export function isProviderDomain(domain: string): boolean {
  const parts = bareDomain(domain).split('.');
  for (let i = 0; i < parts.length - 1; i++) {
    if (PROVIDER_DOMAINS.has(parts.slice(i).join('.'))) return true;
  }
  return false;
}

const CODE_WORDS = /\b(verification|security|sign[- ]?in|log[- ]?in|login|one[- ]time|confirmation|authentication|access|2fa|two[- ]factor|otp|passcode|verify)\b[^\n]{0,60}\b(code|pin|passcode|password)\b|\b(code|pin)\b[^\n]{0,20}\b(is|:)\s*[A-Z0-9]{4,8}\b|\bOTP\b/i;
const LINK_WORDS = /\b(verify|confirm|validate|activate)\b[^\n]{0,40}\b(e-?mail|address|account|identity|sign[- ]?in|login)\b|\b(reset|recover|change)\b[^\n]{0,30}\bpassword\b|\b(sign[- ]?in|log[- ]?in|magic)\s+link\b|\bpassword\s+reset\b/i;

/** What the classifier found in the message (its entities and intent), when it looked. */
export interface FoundEntities { intent?: string; entities?: { codes?: unknown } }

/**
 * Does this look like a sign-in code or a verify / sign-in / password-reset link from a provider?
 * Keyed first on what the extractor found — the classifier's one-time codes (every language it
 * knows, HTML with the code split over tags, any transfer encoding: the same codes `wait --extract`
 * and `mails.extract` would hand out), its `verification_code` intent (which also covers verify and
 * sign-in links it recognises) — with intent classification off, the same extractor run here on
 * the subject and text (as a read of the message runs it) — then on the English words. Links are not matched on their look: a provider's
 * notification carries login and "unsubscribe-auth" links too.
 */
export function isHeldCode(fromDomain: string, subject: string, text: string, found?: FoundEntities | null): boolean {
  if (!isProviderDomain(fromDomain)) return false;
  if (found?.intent === 'verification_code') return true;
  const e = found?.entities;
  if (Array.isArray(e?.codes) && e.codes.length > 0) return true;
  // Intent classification off: the codes a read of the message would find (services/received.ts
  // classificationOf runs the same extractor over the same prefix of the text).
  if (!e || Object.keys(e).length === 0) {
    if (extractEntities(`${subject}\n${text.slice(0, 8 * 1024)}`, null, new Date(0)).codes?.length) return true;
  }
  const hay = `${subject}\n${text.slice(0, 20_000)}`;
  return CODE_WORDS.test(hay) || LINK_WORDS.test(hay);
}
