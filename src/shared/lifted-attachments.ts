/**
 * Attachments decoded before the send service saw them. A send request body over 1 MiB is parsed
 * off the main thread (server/http/body-worker.ts); there each large base64 attachment is checked
 * against the contract's base64 pattern and decoded, and its string is replaced in the parsed body
 * by a short stand-in (empty, or the string's SHA-256 in hex when an Idempotency-Key makes the
 * request's fingerprint matter), so the main thread never holds, validates or decodes the 33 MB
 * string. The decoded bytes travel beside the body (moved, not copied) and are tied here to the
 * attachment item object they came from; services/send.ts reads them instead of decoding the
 * stand-in. A stand-in is valid base64 on its own, so an item copied elsewhere (losing the tie)
 * would decode to the wrong bytes: only the send routes' and the draft create/edit routes' own
 * bodies are lifted, and only the send and draft services read them (drafts store them as blobs,
 * and hand them back to the send this way when the draft is sent).
 */
const lifted = new WeakMap<object, Map<string, Buffer>>();

/** Tie decoded bytes to the attachment item `item`'s field `field` (`content_base64` or `content`). */
export function setLiftedAttachment(item: object, field: string, bytes: Buffer): void {
  let m = lifted.get(item);
  if (!m) lifted.set(item, (m = new Map()));
  m.set(field, bytes);
}

/** The bytes decoded off the main thread for `item[field]`, or undefined: decode the field itself. */
export function liftedAttachment(item: object, field: string): Buffer | undefined {
  return lifted.get(item)?.get(field);
}
