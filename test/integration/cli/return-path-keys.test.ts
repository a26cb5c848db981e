/**
 * `mailagent admin return-path list|rotate|retire`: the keys that sign return paths, managed by
 * the real CLI on the data directory of a real running daemon (test/helpers/daemon.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

interface KeyInfo { id: string; created_at: string; current: boolean }
const keysOf = async (): Promise<KeyInfo[]> => {
  const r = await d.cli(['admin', 'return-path', 'list', '--data-dir', d.dataDir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  return r.json().keys;
};

describe('admin return-path', () => {
  it('list, rotate, retire an old key; the current key and unknown ids are refused with exit 1', async () => {
    // The --help examples, run as written (the default data directory is the daemon's): both lists,
    // the first rotation (a → b), the first retirement (a; the second line is the same with --json).
    for (const cmd of ['list', 'rotate', 'retire']) {
      const help = await d.cli(['admin', 'return-path', cmd, '--help']);
      const lines = [...help.stdout.slice(help.stdout.indexOf('\nExamples:\n')).matchAll(/^ {2}\$ mailagent (.+)$/gm)].map((m) => m[1]);
      expect(lines.length, help.stdout).toBe(2);
      for (const line of cmd === 'list' ? lines : lines.slice(0, 1)) {
        if (line.includes('| jq')) continue;
        const r = await d.cli(line.split(' '));
        expect(r.code, `${line}: ${r.stderr}`).toBe(0);
      }
    }

    const first = await keysOf();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ current: true });
    expect(Number.isNaN(Date.parse(first[0].created_at))).toBe(false);

    const rot = await d.cli(['admin', 'return-path', 'rotate', '--data-dir', d.dataDir, '--json']);
    expect(rot.code, rot.stderr).toBe(0);
    const next = rot.json();
    expect(next.changed).not.toBe(first[0].id);
    expect(next.keys.map((k: KeyInfo) => [k.id, k.current]).sort()).toEqual([[first[0].id, false], [next.changed, true]].sort());

    const cur = await d.cli(['admin', 'return-path', 'retire', next.changed, '--yes', '--data-dir', d.dataDir]);
    expect(cur.code).toBe(1);
    expect(cur.stderr).toMatch(/signs new return paths; rotate first/);
    const unknown = await d.cli(['admin', 'return-path', 'retire', 'z', '--yes', '--data-dir', d.dataDir]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no return path key "z"/);
    expect(await keysOf()).toHaveLength(2);

    const old = await d.cli(['admin', 'return-path', 'retire', first[0].id.toUpperCase(), '--yes', '--data-dir', d.dataDir]);
    expect(old.code, old.stderr).toBe(0);
    expect(old.stdout.split('\n')[0]).toBe(`${next.changed}\t${next.keys.find((k: KeyInfo) => k.current).created_at}\tyes`);
    expect(old.stderr + old.stdout).toMatch(new RegExp(`Key ${first[0].id} retired`));
    expect((await keysOf()).map((k) => k.id)).toEqual([next.changed]);

    // The operator's actions are in the audit log.
    const logs = await d.api('GET', '/v1/logs?category=workspace&limit=10');
    expect(logs.data.map((l: { action: string }) => l.action)).toEqual(expect.arrayContaining(['workspace.return_path_key_rotated', 'workspace.return_path_key_retired']));
  }, 60_000);
});
