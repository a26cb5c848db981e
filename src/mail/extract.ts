/**
 * The new text of a reply: the body without the quoted history and the signature
 * (compat.md: Received message → extracted_text).
 */
const ATTRIBUTION = [
  /^\s*On\b.{0,300}\bwrote:\s*$/i, // Gmail, Apple Mail, Thunderbird
  /^\s*Le\b.{0,300}\ba écrit\s*:\s*$/i,
  /^\s*Am\b.{0,300}\bschrieb\b.{0,200}:\s*$/i,
  /^\s*El\b.{0,300}\bescribió:\s*$/i,
  /^\s*-{2,}\s*(Original Message|Forwarded message|Ursprüngliche Nachricht|Message d'origine)\s*-{2,}\s*$/i,
  /^\s*_{10,}\s*$/, // Outlook's rule above "From: … Sent: …"
  /^\s*From:\s.+$/i, // Outlook header block (only counts when followed by Sent:/Date:)
];
const SIGNATURE = /^(-- ?|—|Sent from my .{1,40}|Get Outlook for .{1,40})$/;

export function extractReplyText(text: string | null | undefined): string {
  if (!text) return '';
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  // Computed once (linear), not rescanned per line: a message of many quoted lines must not cost
  // quadratic time. lastText: the last line that is neither quoted nor blank; quoteAfter[i]: a
  // quoted line exists at or after line i.
  let lastText = -1;
  const quoteAfter = new Array<boolean>(lines.length + 1).fill(false);
  for (let i = lines.length - 1; i >= 0; i--) {
    const quoted = /^\s*>/.test(lines[i]);
    quoteAfter[i] = quoted || quoteAfter[i + 1];
    if (lastText === -1 && !quoted && lines[i].trim() !== '') lastText = i;
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*>/.test(line)) {
      // a quoted block ends the reply when nothing but quotes and blanks follows
      if (i > lastText) break;
      continue;
    }
    if (SIGNATURE.test(line.trimEnd())) break;
    const attribution = ATTRIBUTION.findIndex((re) => re.test(line));
    if (attribution !== -1) {
      if (attribution !== ATTRIBUTION.length - 1) break;
      if (/^\s*(Sent|Date):/i.test(lines[i + 1] ?? '') || /^\s*(Sent|Date):/i.test(lines[i + 2] ?? '')) break;
    }
    // "On Mon, … at 10:00, Alice <a@x>" wrapped over two lines before "wrote:"
    if (/^\s*On\b/i.test(line) && /wrote:\s*$/i.test(lines[i + 1] ?? '') && quoteAfter[i + 2]) break;
    out.push(line);
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim();
}

/** A one-line preview (compat.md: body_text_excerpt). */
export function excerptOf(text: string | null | undefined, max = 200): string {
  const flat = (text ?? '').replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const at = cut.lastIndexOf(' ');
  return (at > max * 0.6 ? cut.slice(0, at) : cut) + '…';
}
