import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signed per-recipient return paths (VERP): the envelope sender (RFC 5321 MAIL FROM) of each
 * outgoing copy is `bounces+<token>@<the agent's domain>`, where the token names the message
 * and, through its MAC, the one recipient of that copy. A delivery report goes to the envelope
 * sender (RFC 5321 §4.5.5, RFC 3464 §2), so a report that arrives at an address whose token
 * verifies is about that recipient of that message, whatever the report's body claims.
 *
 * Token (47 characters, lower-case Crockford base32, so an MTA that lower- or upper-cases the
 * local part, or reads `o`/`i`/`l` for `0`/`1`, changes nothing):
 *   <key id: 1> <the msg_ id's 26 ULID characters> <MAC: 20 = 100 bits>
 * MAC = HMAC-SHA256(key, `rp1|<msg id>|<recipient, lower-case>`), first 100 bits. The key id
 * names which key signed (rotation: services/return-path.ts); the message id's first 10
 * characters are its creation time. Local part `bounces+` + 47 = 55 octets (RFC 5321 §4.5.3.1.1: ≤ 64).
 */

export const RETURN_PATH_LOCAL = 'bounces';
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const MAC_CHARS = 20;
const ID_CHARS = 26;
const TOKEN_RE = new RegExp(`^([${ALPHABET}])([${ALPHABET}]{${ID_CHARS}})([${ALPHABET}]{${MAC_CHARS}})$`);

/** A key id is one character of the token alphabet. */
export const isKeyId = (kid: string): boolean => kid.length === 1 && ALPHABET.includes(kid);

/** Crockford's reading of look-alikes (`o` → 0, `i`/`l` → 1), after lower-casing. */
function canonical(s: string): string {
  return s.toLowerCase().replace(/o/g, '0').replace(/[il]/g, '1');
}

function base32(bytes: Buffer, chars: number): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5 && out.length < chars) {
      out += ALPHABET[(acc >>> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
    if (out.length >= chars) break;
  }
  return out;
}

function mac(key: Buffer, messageId: string, recipient: string): string {
  return base32(createHmac('sha256', key).update(`rp1|${messageId}|${recipient.toLowerCase()}`).digest(), MAC_CHARS);
}

/** The return path of one recipient's copy of `messageId` (a `msg_` id). */
export function returnPathAddress(key: { id: string; secret: Buffer }, messageId: string, recipient: string, domain: string): string {
  const ulid = messageId.replace(/^msg_/, '').toLowerCase();
  return `${RETURN_PATH_LOCAL}+${key.id}${ulid}${mac(key.secret, `msg_${ulid}`, recipient)}@${domain.toLowerCase()}`;
}

export interface ReturnPathToken {
  keyId: string;
  /** The `msg_` id it names. */
  messageId: string;
  mac: string;
}

/**
 * The token of an address shaped like a return path (`bounces+<47 characters>@…`, any case), or
 * null. Shape only: verifyReturnPath says whether it was signed for one of the message's recipients.
 */
export function parseReturnPath(address: string): ReturnPathToken | null {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const local = address.slice(0, at).toLowerCase();
  if (!local.startsWith(`${RETURN_PATH_LOCAL}+`)) return null;
  const m = TOKEN_RE.exec(canonical(local.slice(RETURN_PATH_LOCAL.length + 1)));
  return m ? { keyId: m[1], messageId: `msg_${m[2]}`, mac: m[3] } : null;
}

/** Which of `recipients` (the message's) the token was signed for, or null. Constant time per candidate. */
export function verifyReturnPath(token: ReturnPathToken, secret: Buffer, recipients: Iterable<string>): string | null {
  const given = Buffer.from(token.mac);
  let found: string | null = null;
  for (const r of recipients) {
    const want = Buffer.from(mac(secret, token.messageId, r));
    if (want.length === given.length && timingSafeEqual(want, given) && found === null) found = r.toLowerCase();
  }
  return found;
}
