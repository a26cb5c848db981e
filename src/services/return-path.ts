import { randomBytes } from 'node:crypto';
import { getSentMessageById, type SentMessageRow } from '../db/repos/messages.js';
import { deleteSetting, getSetting, putSetting, putSettingIfAbsent, settingsWithPrefix } from '../db/repos/suppression.js';
import { parseMailbox } from '../mail/address.js';
import { isKeyId, parseReturnPath, returnPathAddress, verifyReturnPath } from '../mail/return-path.js';
import type { Db } from '../db/schema.js';
import { isoAt } from '../shared/clock.js';
import type { AppContext } from './context.js';

/**
 * The signed return path (VERP) of each outgoing copy (mail/return-path.ts has the format) and
 * its keys. The keys live in the database (instance_settings: `return_path_key_<id>` holds a
 * key, `return_path_key_current` names the one that signs), so they survive restarts and are in
 * every backup, and several daemons on one PostgreSQL share them. One set per instance (every
 * workspace's tokens are signed with it; a token names its message, whose workspace is known).
 * Made on first use (a concurrent first writer wins, everyone reads its value).
 */
const CURRENT = 'return_path_key_current';
const FIRST_KEY_ID = 'a';
const KEY_PREFIX = 'return_path_key_';
const keyName = (kid: string) => `${KEY_PREFIX}${kid}`;

interface Keys { current: { id: string; secret: Buffer } | null; byId: Map<string, Buffer | null> }
const cache = new WeakMap<AppContext, Keys>();
const keysOf = (ctx: AppContext): Keys => {
  let k = cache.get(ctx);
  if (!k) cache.set(ctx, (k = { current: null, byId: new Map() }));
  return k;
};

/** A key by id, or null (never made, or retired: its row deleted). Keys never change once written. */
async function keyById(ctx: AppContext, kid: string, db: Db = ctx.db): Promise<Buffer | null> {
  const keys = keysOf(ctx);
  const hit = keys.byId.get(kid);
  if (hit) return hit;
  const v = await getSetting(db, keyName(kid));
  const key = v ? Buffer.from(v, 'hex') : null;
  // A miss is not kept: another daemon may rotate to that id later.
  if (key) keys.byId.set(kid, key);
  return key;
}

/** The key that signs new return paths (made on first use). */
async function currentKey(ctx: AppContext): Promise<{ id: string; secret: Buffer }> {
  const keys = keysOf(ctx);
  if (keys.current) return keys.current;
  let kid = await getSetting(ctx.db, CURRENT);
  if (!kid) {
    const at = isoAt(ctx.clock.now());
    await putSettingIfAbsent(ctx.db, keyName(FIRST_KEY_ID), randomBytes(32).toString('hex'), at);
    await putSettingIfAbsent(ctx.db, CURRENT, FIRST_KEY_ID, at);
    kid = (await getSetting(ctx.db, CURRENT))!;
  }
  const secret = await keyById(ctx, kid);
  if (!secret) throw new Error(`return path key ${kid} is named current but missing`);
  keys.current = { id: kid, secret };
  return keys.current;
}

/**
 * Start signing with a new key; the old ones keep verifying until their rows are deleted
 * (reports may come back days after a send). Another daemon of a cluster picks the new key up at
 * its next start and signs with the old one until then (both verify everywhere).
 */
export async function rotateReturnPathKey(ctx: AppContext): Promise<string> {
  const ids = '0123456789abcdefghjkmnpqrstvwxyz';
  const cur = await currentKey(ctx);
  const next = ids[(ids.indexOf(cur.id) + 1) % ids.length];
  if (!isKeyId(next)) throw new Error('no key id left');
  const at = isoAt(ctx.clock.now());
  await putSetting(ctx.db, keyName(next), randomBytes(32).toString('hex'), at);
  await putSetting(ctx.db, CURRENT, next, at);
  const keys = keysOf(ctx);
  keys.current = null;
  keys.byId.delete(next);
  return (await currentKey(ctx)).id;
}

/** A signing key as an operator sees it (never its secret). */
export interface ReturnPathKeyInfo {
  id: string;
  created_at: string;
  /** Signs new return paths (every listed key verifies). */
  current: boolean;
}

/** The keys that verify return paths, oldest id first; the current one is made if none exists yet. */
export async function listReturnPathKeys(ctx: AppContext): Promise<ReturnPathKeyInfo[]> {
  const cur = await currentKey(ctx);
  // `return_path_key_current` shares the prefix; its suffix is no key id.
  return (await settingsWithPrefix(ctx.db, KEY_PREFIX))
    .map((r) => ({ id: r.name.slice(KEY_PREFIX.length), created_at: r.created_at }))
    .filter((k) => isKeyId(k.id))
    .map((k) => ({ ...k, current: k.id === cur.id }));
}

export class ReturnPathKeyError extends Error {}

/**
 * Retire an old key: return paths it signed stop verifying at once (reports to them are refused
 * at RCPT as an unknown mailbox). The current key cannot be retired: rotate first. A running
 * daemon forgets a retired key at its next start (docs/outbound.md → Return path).
 */
export async function retireReturnPathKey(ctx: AppContext, kid: string): Promise<ReturnPathKeyInfo> {
  const id = kid.trim().toLowerCase();
  const keys = await listReturnPathKeys(ctx);
  const key = keys.find((k) => k.id === id);
  if (!key) throw new ReturnPathKeyError(`no return path key "${kid}" (keys: ${keys.map((k) => k.id).join(', ')})`);
  if (key.current) throw new ReturnPathKeyError(`key "${id}" signs new return paths; rotate first (mailagent admin return-path rotate), then retire it once its reports have come back`);
  await deleteSetting(ctx.db, keyName(id));
  keysOf(ctx).byId.delete(id);
  return key;
}

/** The envelope sender of `recipient`'s copy of a live message: on the From address's domain (SPF and DMARC align as before). */
export async function returnPathFor(ctx: AppContext, row: Pick<SentMessageRow, 'id' | 'from_address'>, recipient: string): Promise<string> {
  const domain = row.from_address.slice(row.from_address.lastIndexOf('@') + 1);
  return returnPathAddress(await currentKey(ctx), row.id, recipient, domain);
}

/** Every address a sent message went to (To, Cc, Bcc), lower-case. */
export function recipientsOf(row: Pick<SentMessageRow, 'to' | 'cc' | 'bcc'>): Set<string> {
  return new Set([...row.to, ...row.cc, ...row.bcc].map((s) => parseMailbox(s)?.address.toLowerCase()).filter((a): a is string => Boolean(a)));
}

export type ReturnPathCheck =
  /** Not shaped like a return path: an ordinary address. */
  | { kind: 'none' }
  /** Shaped like one, but no key of ours signed it for a recipient of a message we still have. */
  | { kind: 'invalid'; reason: string }
  | { kind: 'verified'; sent: SentMessageRow; recipient: string };

/** The message and recipient a verified return path names. */
export interface VerifiedReturnPath {
  messageId: string;
  recipient: string;
}

/** Is `address` a return path this instance signed, and for which message and recipient? `db`: a transaction's, inside one. */
export async function checkReturnPath(ctx: AppContext, address: string, db: Db = ctx.db): Promise<ReturnPathCheck> {
  const token = parseReturnPath(address);
  if (!token) return { kind: 'none' };
  const invalid = { kind: 'invalid', reason: `${address} is not a return path of this server` } as const;
  const secret = await keyById(ctx, token.keyId, db);
  if (!secret) return invalid;
  const sent = await getSentMessageById(db, token.messageId);
  if (!sent || sent.test_mode) return invalid;
  const recipient = verifyReturnPath(token, secret, recipientsOf(sent));
  return recipient ? { kind: 'verified', sent, recipient } : invalid;
}
