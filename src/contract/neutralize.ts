/**
 * Text from mail or the API shown to a person (a terminal, an operator's log), with every control
 * shown rather than obeyed: terminal escape sequences, C0/C1 controls, and the bidi controls that
 * reorder what is displayed (Trojan Source, CVE-2021-42574). Caret notation for C0 and DEL (`^[`,
 * `^G`, `^?`), `<U+202E>` for C1 and bidi controls. The CLI's views (src/cli/output.ts) and the
 * daemon's per-message log lines (server/message-log.ts) both go through it.
 */
/**
 * What a terminal would act on rather than show: C0 controls (ESC starts colour, cursor, screen,
 * title and hyperlink sequences; BEL, BS, CR overwrite), DEL, C1 controls (U+0080–U+009F: some
 * terminals read U+009B as CSI), and the Unicode bidi controls that reorder what is displayed.
 * Tab and newline are matched too; the caller decides.
 */
const CONTROLS = /\x1b\[[0-9;]*m|\r\n|[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

export interface NeutralizeOptions {
  /** Keep line breaks (CRLF becomes LF) and tabs: a message body. Otherwise they become spaces. */
  multiline?: boolean;
  /** Keep SGR colour sequences (`ESC[…m`): only for text this CLI coloured itself, on a coloured stream. */
  keepSgr?: boolean;
}

export function neutralize(text: string, opts: NeutralizeOptions = {}): string {
  return text.replace(CONTROLS, (m) => {
    if (m.length > 1 && m !== '\r\n') return opts.keepSgr ? m : '^[' + m.slice(1);
    if (m === '\r\n' || m === '\n') return opts.multiline ? '\n' : ' ';
    if (m === '\t') return opts.multiline ? '\t' : ' ';
    const c = m.charCodeAt(0);
    if (c < 0x20) return '^' + String.fromCharCode(c + 0x40);
    if (c === 0x7f) return '^?';
    return `<U+${c.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}
