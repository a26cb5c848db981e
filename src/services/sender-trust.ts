import type { InboundSource } from '../db/repos/received.js';
import { bareDomain, domainOf as mailDomainOf } from '../mail/address.js';
import type { AppContext } from './context.js';
import { splitPlus } from './plus-addresses.js';

/**
 * Whether the From address of an inbound message is vouched for (docs/inbound.md → Who sent it):
 * - `authenticated`: local delivery (an agent of this server sent it: it never left the process),
 *   an SMTP client in `trustedNetworks`, the simulator unless its caller said SPF or DKIM failed,
 *   or SMTP mail whose DMARC result is `pass` (an SPF or DKIM pass aligned with the From domain)
 *   or whose SPF passed for an envelope domain aligned with the From domain (the same domain, or
 *   one a subdomain of the other).
 * - `forged`: SMTP mail from outside, not authenticated, whose From is on one of this server's own
 *   domains — an agent's mail to another agent is delivered locally and never arrives over SMTP.
 * - `unauthenticated`: anything else (SPF/DKIM `none`, a DKIM pass of some other domain, a failure).
 * Only an authenticated sender inherits the workspace's history with the address (the
 * classifier's sender_reputation, and "known correspondent" for an action request): the From
 * header is all a forger needs to write.
 */
export type SenderTrust = 'authenticated' | 'unauthenticated' | 'forged';

export interface TrustInput {
  source: InboundSource;
  mailFrom: string;
  auth?: { spf: boolean | null; dkim: boolean | null; dmarc?: string | null; trustedNetwork?: string | null };
}

const domainOf = (address: string): string => (address.includes('@') ? mailDomainOf(address) : '');

/** Relaxed alignment without a public-suffix list: the same domain, or one a subdomain of the other. */
export function aligned(a: string, b: string): boolean {
  a = bareDomain(a);
  b = bareDomain(b);
  if (!a || !b) return false;
  return a === b || a.endsWith('.' + b) || b.endsWith('.' + a);
}

/** Verdict from the message's own results (no I/O): null = ask whether the From is on a local domain. */
function trustOf(input: TrustInput, from: string): SenderTrust | null {
  if (input.source === 'local') return 'authenticated';
  const a = input.auth;
  if (a?.trustedNetwork) return 'authenticated';
  if (input.source === 'simulator') return a?.spf === false || a?.dkim === false ? 'unauthenticated' : 'authenticated';
  if (a?.dmarc === 'pass') return 'authenticated';
  if (a?.spf === true && aligned(domainOf(input.mailFrom), domainOf(from))) return 'authenticated';
  return null;
}

/** The sender's trust (see SenderTrust); reads only the cached routing of the From's domain. */
export async function senderTrust(ctx: AppContext, input: TrustInput, from: string, isLocalDomain: (ctx: AppContext, domain: string) => Promise<boolean>): Promise<SenderTrust> {
  const known = trustOf(input, from);
  if (known) return known;
  const parts = splitPlus(from);
  return parts && (await isLocalDomain(ctx, parts.domain)) ? 'forged' : 'unauthenticated';
}
