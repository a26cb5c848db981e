import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { expect, it } from 'vitest';

it('stops quietly with exit 0 when the reader of stdout goes away (mailagent … | head)', async () => {
  const child = spawn(process.execPath, [resolve('bin/mailagent'), 'completion', 'zsh'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (c) => { stderr += String(c); });
  // Close our end of the pipe before the CLI writes, as `| head -1` does once it has its line.
  child.stdout.destroy();
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  expect(stderr).not.toMatch(/EPIPE|Error/);
  expect(code).toBe(0);
});
