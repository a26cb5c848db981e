import { Chalk, supportsColor, supportsColorStderr, type ChalkInstance } from 'chalk';
import { neutralize, type NeutralizeOptions } from '../contract/neutralize.js';

/** A stream the CLI writes to (process.stdout/stderr, or a capture in tests). */
export interface Sink {
  write(s: string): unknown;
  isTTY?: boolean;
}

export interface OutputOptions {
  json: boolean;
  quiet: boolean;
  /** false with --no-color. */
  color: boolean;
  env?: NodeJS.ProcessEnv;
  stdout?: Sink;
  stderr?: Sink;
}

export type Column<T> = [header: string, cell: (row: T) => unknown];

/**
 * Colour is decided per stream (chalk 5 ignores NO_COLOR): only on a TTY, never with NO_COLOR
 * (no-color.org: present and non-empty), --no-color or --json.
 */
export function colorLevel(stream: Sink, opts: { json: boolean; color: boolean; env?: NodeJS.ProcessEnv }, detected: number): 0 | 1 | 2 | 3 {
  const env = opts.env ?? process.env;
  if (opts.json || !opts.color || !stream.isTTY) return 0;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return 0;
  if (env.TERM === 'dumb') return 0;
  return (Math.max(1, Math.min(3, detected)) as 1 | 2 | 3);
}

const ANSI = /\x1b\[[0-9;]*m/g;
const visible = (s: string) => s.replace(ANSI, '').length;

/**
 * THE one function every human-readable output path goes through (issue #10 item 10): text from
 * mail or the API can never drive the terminal (src/contract/neutralize.ts, which the daemon's log
 * lines use too). `--json` output never passes here: it stays byte-exact (JSON.stringify already
 * escapes C0).
 */
export { neutralize, type NeutralizeOptions };

/** Every string inside an API object, neutralised (line breaks kept): what human views print. */
export function neutralizeDeep<T>(value: T): T {
  if (typeof value === 'string') return neutralize(value, { multiline: true }) as T;
  if (Array.isArray(value)) return value.map(neutralizeDeep) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [neutralize(k), neutralizeDeep(v)])) as T;
  }
  return value;
}

function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (Array.isArray(v)) return neutralize(v.join(','));
  if (typeof v === 'object') return neutralize(JSON.stringify(v));
  // Tabs and newlines would break tab-separated output for scripts: one line per row.
  return neutralize(String(v));
}

export class Output {
  readonly json: boolean;
  readonly quiet: boolean;
  readonly stdout: Sink;
  readonly stderr: Sink;
  /** chalk for stdout / for stderr. */
  readonly c: ChalkInstance;
  readonly ce: ChalkInstance;

  constructor(opts: OutputOptions) {
    this.json = opts.json;
    this.quiet = opts.quiet;
    this.stdout = opts.stdout ?? process.stdout;
    this.stderr = opts.stderr ?? process.stderr;
    this.c = new Chalk({ level: colorLevel(this.stdout, opts, supportsColor ? supportsColor.level : 1) });
    this.ce = new Chalk({ level: colorLevel(this.stderr, opts, supportsColorStderr ? supportsColorStderr.level : 1) });
  }

  get tty(): boolean {
    return !!this.stdout.isTTY;
  }

  /**
   * One line (or several) of human text on stdout, neutralised; SGR colour survives only on a
   * coloured stream (ours: data is neutralised before it is coloured, see result()/cellText).
   * With --json a line is a JSON document (events tail, api) and passes byte-exact.
   */
  line(text = ''): void {
    this.stdout.write((this.json ? text : neutralize(text, { multiline: true, keepSgr: this.c.level > 0 })) + '\n');
  }

  /** Human text on stderr, neutralised the same way. */
  private note(text: string): void {
    this.stderr.write(neutralize(text, { multiline: true, keepSgr: this.ce.level > 0 }) + '\n');
  }

  /** Pretty JSON of an API object, unchanged. */
  printJson(value: unknown): void {
    this.stdout.write(JSON.stringify(value, null, 2) + '\n');
  }

  /** One compact JSON object per line (streams). */
  ndjson(value: unknown): void {
    this.stdout.write(JSON.stringify(value) + '\n');
  }

  /** An API object: unchanged JSON with --json, else `human()` or a key/value record. */
  result<T>(value: T, human?: (value: T) => void): void {
    if (this.json) return this.printJson(value);
    // The human view sees the object with every string neutralised; --json printed it unchanged.
    if (human) human(neutralizeDeep(value));
    else this.record(value as Record<string, unknown>);
  }

  /**
   * What a create command prints: the object with --json; its id alone when stdout is not a
   * terminal (so `ID=$(mailagent drafts create …)` works, as with send); else the human view.
   */
  created<T extends { id: string }>(value: T, human: (value: T) => void): void {
    if (this.json) return this.printJson(value);
    if (!this.tty) return this.line(value.id);
    human(neutralizeDeep(value));
  }

  /** A list page: the page unchanged with --json, else a table and a "more" hint on stderr. */
  page<T>(page: { data: T[]; has_more: boolean; next_cursor?: string }, columns: Column<T>[], empty = 'nothing to show'): void {
    if (this.json) return this.printJson(page);
    if (page.data.length === 0) {
      this.info(empty);
      return;
    }
    this.table(page.data, columns);
    if (page.has_more && page.next_cursor) this.info(`more results: add --cursor ${page.next_cursor}`);
  }

  /** Aligned columns with a header on a TTY; header-less tab-separated lines when piped. */
  table<T>(rows: T[], columns: Column<T>[]): void {
    if (this.json) return this.printJson(rows);
    const cells = rows.map((r) => columns.map(([, f]) => cellText(f(r))));
    if (!this.tty) {
      for (const row of cells) this.line(row.join('\t'));
      return;
    }
    const headers = columns.map(([h]) => h);
    const widths = headers.map((h, i) => Math.max(visible(h), ...cells.map((r) => visible(r[i]))));
    const fmt = (row: string[]) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat(widths[i] - visible(cell)))).join('  ').trimEnd();
    this.line(this.c.bold(fmt(headers)));
    for (const row of cells) this.line(fmt(row));
  }

  /** A single object as `key  value` lines (tab-separated when piped). */
  record(obj: Record<string, unknown>, fields?: string[]): void {
    if (this.json) return this.printJson(obj);
    const keys = fields ?? Object.keys(obj);
    const width = Math.max(0, ...keys.map((k) => k.length));
    for (const k of keys) {
      const v = cellText(obj[k]);
      const key = neutralize(k);
      this.line(this.tty ? `${this.c.dim(key.padEnd(width))}  ${v}` : `${key}\t${v}`);
    }
  }

  /** Progress and notes on stderr; silenced by --quiet. */
  info(msg: string): void {
    if (!this.quiet) this.note(msg);
  }

  success(msg: string): void {
    if (!this.quiet) this.note(`${this.ce.green('✓')} ${msg}`);
  }

  /** Warnings are never silenced. */
  warn(msg: string): void {
    this.note(`${this.ce.yellow('warning:')} ${msg}`);
  }

  error(line: string): void {
    this.note(this.ce.red(line));
  }
}
