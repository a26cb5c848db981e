import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/program.js';

function paths(c: Command, prefix = ''): string[] {
  const here = prefix ? `${prefix} ${c.name()}` : c.name();
  return [here, ...c.commands.flatMap((s) => paths(s, here))];
}

describe('buildProgram', () => {
  it('has every command the foundation names', () => {
    const all = paths(buildProgram());
    for (const p of [
      'mailagent init', 'mailagent serve', 'mailagent whoami', 'mailagent api', 'mailagent completion',
      'mailagent agents list', 'mailagent agents create', 'mailagent agents get', 'mailagent agents update',
      'mailagent agents pause', 'mailagent agents resume', 'mailagent agents archive',
      'mailagent keys list', 'mailagent keys create', 'mailagent keys revoke',
    ]) expect(all).toContain(p);
  });

  it('has the global options', () => {
    const longs = buildProgram().options.map((o) => o.long);
    for (const f of ['--base-url', '--api-key', '--profile', '--live', '--json', '--no-color', '--quiet']) expect(longs).toContain(f);
  });

  it('destructive verbs take --yes', () => {
    const p = buildProgram();
    const find = (noun: string, verb: string) => p.commands.find((c) => c.name() === noun)!.commands.find((c) => c.name() === verb)!;
    expect(find('agents', 'archive').options.map((o) => o.long)).toContain('--yes');
    expect(find('keys', 'revoke').options.map((o) => o.long)).toContain('--yes');
  });

  it('is pure: two builds are independent trees', () => {
    expect(buildProgram()).not.toBe(buildProgram());
  });
});
