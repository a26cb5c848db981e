/**
 * Every example printed by `--help` (and so by the man pages) parses: the words after `mailagent`
 * go through the real commander tree with every action replaced by a recorder, so an unknown
 * option, a bad choice or a number out of range fails here, and the example must land on the
 * command it is listed under. Time flags that ask for a future time must stay valid for a long
 * while: relative (`+2h`) or at least a year ahead, so the examples never go stale.
 */
import { CommanderError, type Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';
import { examplesOf } from '../../../src/cli/context.js';
import { parseTime } from '../../../src/cli/time.js';

/** Shell words of the `mailagent …` part of one example line (quotes removed; stops at | > < ) ; && #). */
export function mailagentWords(line: string): string[] | null {
  const words: string[] = [];
  let cur: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '"' || c === "'") {
      const end = line.indexOf(c, i + 1);
      cur = (cur ?? '') + line.slice(i + 1, end);
      i = end;
    } else if (/\s/.test(c)) {
      if (cur !== null) words.push(cur);
      cur = null;
    } else if ('|<>;()#&$'.includes(c) && (c !== '$' || line[i + 1] === '(')) {
      // An operator (or `$(`) ends the word and the command: mark it so the slice below stops.
      if (cur !== null) words.push(cur);
      cur = null;
      words.push(`\u0000${c}`);
      if (c === '$') i++;
    } else {
      cur = (cur ?? '') + c;
    }
  }
  if (cur !== null) words.push(cur);
  // `sudo -u mailagent … mailagent doctor`, `claude mcp add mailagent -- mailagent mcp`: a name, not the command.
  const start = words.findIndex((w, i) => w === 'mailagent' && words[i - 1] !== '-u' && words[i + 1] !== '--');
  if (start < 0) return null;
  const rest = words.slice(start + 1);
  const end = rest.findIndex((w) => w.startsWith('\u0000'));
  return end < 0 ? rest : rest.slice(0, end);
}

function walk(c: Command, path: string[] = []): { cmd: Command; path: string[] }[] {
  return [{ cmd: c, path }, ...c.commands.flatMap((s) => walk(s, [...path, s.name()]))];
}

/** A program whose actions only record which command ran with which options. */
function recordingProgram() {
  const program = buildProgram();
  const ran: { path: string[]; opts: Record<string, unknown> }[] = [];
  for (const { cmd, path } of walk(program)) {
    cmd.exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
    if (cmd.commands.length === 0 && cmd !== program) cmd.action((...args: unknown[]) => {
      ran.push({ path, opts: (args[args.length - 1] as Command).opts() });
    });
  }
  return { program, ran };
}

const all = walk(buildProgram()).flatMap(({ cmd, path }) => examplesOf(cmd).map((line) => ({ line, path })));
/** Flags whose value the API wants in the future. */
const FUTURE_FLAGS = { at: '--at', sendAt: '--send-at', expiresAt: '--expires-at' } as const;

describe('--help examples', () => {
  it('there are examples for every leaf command', () => {
    const leaves = walk(buildProgram()).filter(({ cmd, path }) => path.length > 0 && cmd.commands.length === 0);
    const without = leaves.filter(({ cmd }) => examplesOf(cmd).length === 0).map(({ path }) => path.join(' '));
    expect(without).toEqual([]);
    expect(all.length).toBeGreaterThan(150);
  });

  it.each(all.map((e) => [e.path.join(' '), e.line] as const))('%s: %s', async (path, line) => {
    const words = mailagentWords(line);
    expect(words, line).not.toBeNull();
    const { program, ran } = recordingProgram();
    try {
      await program.parseAsync(words!, { from: 'user' });
    } catch (err) {
      throw new Error(`${line}\n  parsed as ${JSON.stringify(words)}: ${err instanceof CommanderError ? err.message : err}`);
    }
    expect(ran.map((r) => r.path.join(' '))).toEqual([path]);
    const year = Date.now() + 365 * 86_400_000;
    for (const [key, flag] of Object.entries(FUTURE_FLAGS)) {
      const v = ran[0].opts[key];
      if (typeof v !== 'string') continue;
      const t = Date.parse(parseTime(flag, v));
      if (!v.startsWith('+')) expect(t, `${flag} ${v} in "${line}" goes stale within a year: use +2h / +1d`).toBeGreaterThan(year);
      else expect(t).toBeGreaterThan(Date.now());
    }
  });
});

describe('examples of commands that send', () => {
  it('name --agent (a workspace with a second agent, as after the README, refuses them without it)', () => {
    const sending = all.filter((e) => ['send', 'appeal', 'drafts create'].includes(e.path.join(' ')));
    expect(sending.length).toBeGreaterThanOrEqual(7);
    for (const e of sending) expect(e.line, e.line).toMatch(/ --agent \S+/);
  });
});

describe('numeric flags', () => {
  it('every --limit refuses 0 and 101 at parse time (a usage error, exit 2), and takes 1 and 100', async () => {
    const withLimit = walk(buildProgram()).filter(({ cmd }) => cmd.options.some((o) => o.long === '--limit'));
    expect(withLimit.length).toBeGreaterThan(10);
    for (const { path } of withLimit) {
      // Arguments the command needs before its options.
      const { program } = recordingProgram();
      const cmd = walk(program).find((w) => w.path.join(' ') === path.join(' '))!.cmd;
      const args = cmd.registeredArguments.filter((a) => a.required).map(() => 'x');
      for (const bad of ['0', '101', 'abc', '-1']) {
        const { program: p } = recordingProgram();
        const err = await p.parseAsync([...path, ...args, '--limit', bad], { from: 'user' }).then(() => null, (e: unknown) => e);
        expect(err, `${path.join(' ')} --limit ${bad}`).toBeInstanceOf(CommanderError);
        expect((err as CommanderError).code).toBe('commander.invalidArgument');
      }
      for (const good of ['1', '100']) {
        const r = recordingProgram();
        await r.program.parseAsync([...path, ...args, '--limit', good], { from: 'user' });
        expect(r.ran[0].opts.limit).toBe(Number(good));
      }
    }
  });
});
