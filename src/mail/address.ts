import { domainToASCII } from 'node:url';

/**
 * One mailbox per item, validated here rather than by nodemailer's lenient parser, which turns
 * `"a@x, b@y"` into two recipients and CR/LF input into an address group (DESIGN.md: Known traps).
 * Accepted: `user@example.com` or `Display Name <user@example.com>` (RFC 5322 name-addr with a
 * dot-atom local part). Nothing with a control character, a comma outside quotes, or a second
 * address is ever accepted, so no header or SMTP envelope can be injected through an address.
 */
export interface Mailbox {
  address: string;
  name: string | null;
}

const LOCAL_RE = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const LABEL_RE = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
// eslint-disable-next-line no-control-regex
const CONTROL_RE = /[\u0000-\u001f\u007f]/;

/** A bare address: dot-atom local part (≤ 64), a domain of at least two labels (IDN → punycode). */
export function normalizeAddress(raw: string): string | null {
  const s = raw.trim();
  if (!s || s.length > 254 || CONTROL_RE.test(s)) return null;
  const at = s.lastIndexOf('@');
  if (at <= 0 || at === s.length - 1) return null;
  const local = s.slice(0, at);
  const domainRaw = s.slice(at + 1);
  if (local.length > 64 || !LOCAL_RE.test(local)) return null;
  if (/[^\x21-\x7e\u00a0-\uffff]/.test(domainRaw)) return null;
  const domain = domainToASCII(domainRaw.toLowerCase());
  if (!domain || domain.length > 253) return null;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL_RE.test(l))) return null;
  return `${local}@${domain}`;
}

/**
 * RFC 5321 §4.1.2: a quoted-string local part whose content needs no quoting is the same mailbox
 * as the plain dot-atom (`"agent"@x` is `agent@x`, `"a\.b"@x` is `a.b@x`). Such an address comes
 * back unquoted; any other (no quotes, or content that needs them: a space, an `@`, a leading,
 * trailing or doubled dot) comes back unchanged, so it still names no agent.
 */
export function unquoteLocalPart(address: string): string {
  // eslint-disable-next-line no-control-regex
  const m = /^"((?:[^"\\\u0000-\u001f\u007f]|\\[\u0020-\u007e])*)"(@[^@"\s]+)$/.exec(address);
  if (!m) return address;
  const local = m[1].replace(/\\(.)/g, '$1');
  return local.length <= 64 && LOCAL_RE.test(local) ? local + m[2] : address;
}

/** `Name <addr>` or `addr`; null when it is not exactly one valid mailbox. */
export function parseMailbox(raw: string): Mailbox | null {
  if (typeof raw !== 'string' || CONTROL_RE.test(raw)) return null;
  const s = raw.trim();
  const m = /^(.*?)\s*<([^<>]*)>$/.exec(s);
  if (!m) {
    if (/[<>,;"()\s]/.test(s)) return null;
    const address = normalizeAddress(s);
    return address ? { address, name: null } : null;
  }
  let name = m[1].trim();
  if (name.startsWith('"')) {
    if (!/^"(?:[^"\\]|\\.)*"$/.test(name)) return null;
    name = name.slice(1, -1).replace(/\\(.)/g, '$1');
  } else if (/[<>,;:@"()[\]\\]/.test(name)) {
    // Unquoted specials (RFC 5322 §3.2.3) would make the display name a second address or group.
    return null;
  }
  const address = normalizeAddress(m[2]);
  if (!address) return null;
  return { address, name: name || null };
}

export function domainOf(address: string): string {
  return bareDomain(address.slice(address.lastIndexOf('@') + 1));
}

/**
 * A domain as compared: lower-case, without the DNS root's trailing dot (RFC 1034 §3.1:
 * `example.com.` is `example.com`). Every comparison of a domain (own-domain, sender trust,
 * routing, allow/blocklists, suppression) goes through this, so a trailing dot is no way around one.
 */
export function bareDomain(domain: string): string {
  return domain.trim().toLowerCase().replace(/\.$/, '');
}

/** `user@example.com.` → `user@example.com` (the domain made bare; the local part kept as written). */
export function bareAddress(address: string): string {
  const a = address.trim();
  const at = a.lastIndexOf('@');
  return at < 0 ? a : `${a.slice(0, at)}@${bareDomain(a.slice(at + 1))}`;
}

export function localPartOf(address: string): string {
  return address.slice(0, address.lastIndexOf('@'));
}

/** Comparison key for recipients (counting, suppression): the address lower-cased. */
export function addressKey(address: string): string {
  return address.toLowerCase();
}

/** A domain equal to or below one of `domains`. */
export function domainMatches(domain: string, domains: string[]): boolean {
  const d = bareDomain(domain);
  return domains.map(bareDomain).some((x) => d === x || d.endsWith('.' + x));
}

/** Header-safe text: CR, LF and other control characters become spaces (RFC 5322 §2.2 unfolding). */
export function headerSafe(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000a-\u001f\u007f]+/g, ' ');
}

export function formatMailbox(m: Mailbox): string {
  if (!m.name) return m.address;
  return `"${m.name.replace(/["\\]/g, '\\$&')}" <${m.address}>`;
}

/**
 * A display name that holds an address or angle brackets makes a reader see another sender
 * (`From: "ceo@bank.com <ceo@bank.com>" <agent@x>` shows as the bank in many clients). Returns
 * what is wrong with it, or null when it is a plain name.
 */
export function misleadingDisplayName(name: string): string | null {
  if (/[<>]/.test(name)) return 'angle brackets';
  if (/[^\s@<>"',;:]+@[^\s@<>"',;:]+\.[^\s@<>"',;:]+/.test(name)) return 'an email address';
  return null;
}

