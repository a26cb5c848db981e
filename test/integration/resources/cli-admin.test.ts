import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';

let d: TestDaemon;
beforeAll(async () => { d = await startDaemon(); });
afterAll(async () => { await d.stop(); });

it('mailagent admin tier changes the caps of a running daemon at once', async () => {
  const usage = async () => (await (await fetch(`${d.url}/v1/billing/usage`, { headers: { authorization: `Bearer ${d.liveKey}` } })).json()) as any;
  expect((await usage()).caps.hourly).toBe(30);
  const r = await d.cli(['admin', 'tier', 'pro', '--data-dir', d.dataDir, '--json']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.json()).toMatchObject({ from: 'free', tier: 'pro' });
  expect((await usage()).caps).toMatchObject({ hourly: 500, daily: 5000, monthly_sends: 50000 });
  const bad = await d.cli(['admin', 'tier', 'gold', '--data-dir', d.dataDir]);
  expect(bad.code).toBe(2);
});
