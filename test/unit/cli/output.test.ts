import { describe, expect, it } from 'vitest';
import { Output, colorLevel, type Sink } from '../../../src/cli/output.js';
import { ApiError } from '../../../src/contract/errors.js';
import { EXIT, CliError, InterruptedError, UsageError, exitCodeFor, formatError } from '../../../src/cli/errors.js';

function sink(isTTY: boolean): Sink & { text: string } {
  const s = { text: '', isTTY, write(x: string) { s.text += x; return true; } };
  return s;
}

function out(opts: { tty?: boolean; json?: boolean; color?: boolean; quiet?: boolean; env?: NodeJS.ProcessEnv } = {}) {
  const stdout = sink(opts.tty ?? false);
  const stderr = sink(opts.tty ?? false);
  const o = new Output({ json: !!opts.json, quiet: !!opts.quiet, color: opts.color ?? true, env: opts.env ?? {}, stdout, stderr });
  return { o, stdout, stderr };
}

describe('colour level, decided per stream', () => {
  const tty = { isTTY: true, write: () => true };
  const pipe = { isTTY: false, write: () => true };
  it('only on a TTY', () => {
    expect(colorLevel(tty, { json: false, color: true, env: {} }, 2)).toBe(2);
    expect(colorLevel(pipe, { json: false, color: true, env: {} }, 2)).toBe(0);
  });
  it('off with NO_COLOR (non-empty), --no-color, --json, TERM=dumb', () => {
    expect(colorLevel(tty, { json: false, color: true, env: { NO_COLOR: '1' } }, 2)).toBe(0);
    expect(colorLevel(tty, { json: false, color: true, env: { NO_COLOR: '' } }, 2)).toBe(2);
    expect(colorLevel(tty, { json: false, color: false, env: {} }, 2)).toBe(0);
    expect(colorLevel(tty, { json: true, color: true, env: {} }, 2)).toBe(0);
    expect(colorLevel(tty, { json: false, color: true, env: { TERM: 'dumb' } }, 2)).toBe(0);
  });
  it('a TTY stdout and a piped stderr get different levels', () => {
    const stdout = sink(true);
    const stderr = sink(false);
    const o = new Output({ json: false, quiet: false, color: true, env: {}, stdout, stderr });
    expect(o.c.level).toBeGreaterThan(0);
    expect(o.ce.level).toBe(0);
  });
});

describe('tables and records', () => {
  const rows = [{ id: 'a1', name: 'sarah', tags: ['x', 'y'] }, { id: 'a22', name: 'bo\tb', tags: [] }];
  const cols: [string, (r: (typeof rows)[number]) => unknown][] = [['ID', (r) => r.id], ['NAME', (r) => r.name], ['TAGS', (r) => r.tags]];

  it('piped: tab-separated, no header, tabs in values flattened', () => {
    const { o, stdout } = out();
    o.table(rows, cols);
    expect(stdout.text).toBe('a1\tsarah\tx,y\na22\tbo b\t\n');
  });

  it('TTY: aligned columns under a header', () => {
    const { o, stdout } = out({ tty: true, color: false });
    o.table(rows, cols);
    expect(stdout.text.split('\n')).toEqual(['ID   NAME   TAGS', 'a1   sarah  x,y', 'a22  bo b', '']);
  });

  it('--json prints the page unchanged and nothing on stderr', () => {
    const { o, stdout, stderr } = out({ json: true, tty: true });
    const page = { data: rows, has_more: true, next_cursor: 'c1' };
    o.page(page, cols);
    expect(JSON.parse(stdout.text)).toEqual(page);
    expect(stderr.text).toBe('');
  });

  it('a page with more results hints the cursor on stderr', () => {
    const { o, stdout, stderr } = out();
    o.page({ data: rows, has_more: true, next_cursor: 'c1' }, cols);
    expect(stdout.text.split('\n').length).toBe(3);
    expect(stderr.text).toContain('--cursor c1');
  });

  it('records: key<TAB>value when piped', () => {
    const { o, stdout } = out();
    o.record({ id: 'x', none: null, list: ['a', 'b'] });
    expect(stdout.text).toBe('id\tx\nnone\t\nlist\ta,b\n');
  });

  it('ndjson: one compact object per line', () => {
    const { o, stdout } = out({ json: true });
    o.ndjson({ a: 1 });
    o.ndjson({ b: [2] });
    expect(stdout.text).toBe('{"a":1}\n{"b":[2]}\n');
  });

  it('--quiet silences info and success, never warnings', () => {
    const { o, stderr } = out({ quiet: true });
    o.info('i');
    o.success('s');
    o.warn('w');
    expect(stderr.text).toBe('warning: w\n');
  });

  it('no escape codes reach a pipe', () => {
    const { o, stdout, stderr } = out({ tty: false });
    o.table(rows, cols);
    o.success('ok');
    o.warn('w');
    expect(stdout.text + stderr.text).not.toContain('\x1b[');
  });
});

describe('exit codes and the error line', () => {
  const apiErr = (status: number, code: string) =>
    Object.assign(new ApiError(status, status === 401 ? 'authentication_error' : status === 403 ? 'permission_error' : 'invalid_request_error', code as never, 'msg', { param: code === 'invalid_param_value' ? 'limit' : null }), { requestId: 'req_1' });

  it('maps errors to 0/1/2/4/130', () => {
    expect(exitCodeFor(apiErr(400, 'invalid_param_value'))).toBe(EXIT.error);
    expect(exitCodeFor(apiErr(404, 'agent_not_found'))).toBe(1);
    expect(exitCodeFor(apiErr(500, 'internal_error'))).toBe(1);
    expect(exitCodeFor(apiErr(401, 'invalid_api_key'))).toBe(4);
    expect(exitCodeFor(apiErr(403, 'insufficient_scope'))).toBe(4);
    expect(exitCodeFor(new UsageError('x'))).toBe(2);
    expect(exitCodeFor(new CliError('x', 4))).toBe(4);
    expect(exitCodeFor(new InterruptedError())).toBe(130);
    expect(exitCodeFor(Object.assign(new Error('x'), { name: 'ExitPromptError' }))).toBe(130);
    expect(exitCodeFor(new Error('boom'))).toBe(1);
  });

  it('formats `error: <message> (code <code>, request <req_id>)`', () => {
    expect(formatError(apiErr(404, 'agent_not_found'))).toBe('error: msg (code agent_not_found, request req_1)');
    expect(formatError(apiErr(400, 'invalid_param_value'))).toBe('error: msg (code invalid_param_value, param limit, request req_1)');
    expect(formatError(new UsageError('missing --name'))).toBe('error: missing --name');
  });
});
