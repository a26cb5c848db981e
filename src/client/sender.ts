import { checksFailed } from '../contract/received.js';
/**
 * The sender filter shared by `mailagent wait --from` and the MCP tools' `from`: an address
 * (matched exactly, case-insensitively) or a domain (`example.com` or `@example.com`: that domain
 * and its subdomains). Never a substring, and never the display name: both are the sender's to
 * choose, and a wait for a sign-in code must not return `codes@example.com.attacker.net` or a
 * message whose name reads "example.com".
 *
 * A domain's trailing dot (the DNS root: `example.com.` is `example.com`) is ignored on both sides.
 *
 * Returns the test, or null when `value` is neither an address nor a domain.
 */
export function senderFilter(value: string): ((address: string) => boolean) | null {
  const want = bare(value);
  if (/^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/.test(want)) return (a) => bare(a) === want;
  const domain = want.replace(/^@/, '');
  if (!/^[a-z0-9-]+(\.[a-z0-9-]+)+$/.test(domain)) return null;
  return (a) => {
    const d = bare(a).split('@').pop() ?? '';
    return d === domain || d.endsWith('.' + domain);
  };
}

/** Lower-case, trimmed, without a trailing dot (the client imports contract only, not mail/address.ts). */
const bare = (s: string): string => s.trim().toLowerCase().replace(/\.$/, '');

export const SENDER_FILTER_FORMS = 'an address (codes@example.com) or a domain (example.com: it and its subdomains)';

/**
 * Did the sender of a received message fail authentication? The daemon's `authentication_failed`
 * (docs/inbound.md → Who sent it: an unauthenticated event — SPF and DKIM both failed, or a forged
 * From on the server's own domains — or a check failed and none passed); from an older daemon
 * without the field, the same reading of spf_pass / dkim_pass. `mailagent wait --extract` and the
 * MCP tool `mails.extract` pass such mail over unless asked to accept it: a one-time code or
 * sign-in link is only as good as the sender it came from.
 */
export function authenticationFailed(m: { authentication_failed?: boolean; spf_pass: boolean | null; dkim_pass: boolean | null }): boolean {
  if (typeof m.authentication_failed === 'boolean') return m.authentication_failed;
  return checksFailed(m.spf_pass, m.dkim_pass);
}
