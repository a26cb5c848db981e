const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/**
 * An id just before `id` in the id order (the last base-32 digit decremented, borrowing): for
 * "after this message" filters that must include `id` itself. `id.replace(/.$/, '0')` is the id
 * itself whenever its last digit is already 0 (1 in 32), which excluded the message.
 */
export function idJustBefore(id: string): string {
  const [prefix, body] = [id.slice(0, id.indexOf('_') + 1), id.slice(id.indexOf('_') + 1)];
  const digits = [...body];
  for (let i = digits.length - 1; i >= 0; i--) {
    const v = ALPHABET.indexOf(digits[i]);
    if (v > 0) {
      digits[i] = ALPHABET[v - 1];
      return prefix + digits.join('');
    }
    digits[i] = ALPHABET[31];
  }
  throw new Error(`no id before ${id}`);
}
