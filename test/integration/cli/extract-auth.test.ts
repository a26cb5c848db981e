/**
 * An outside tester's finding: `mailagent wait --extract` and the MCP tool `mails.extract` handed out
 * a code from mail whose sender failed SPF and DKIM. The real CLI and the daemon's MCP endpoint
 * against a real `mailagent serve` (test/helpers/daemon.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startDaemon, type TestDaemon } from '../../helpers/daemon.js';

let d: TestDaemon;

beforeAll(async () => {
  d = await startDaemon();
}, 60_000);
afterAll(async () => {
  await d?.stop();
});

describe('codes from mail that failed authentication', () => {
  it('wait --extract passes it over (exit 1) unless --include-unauthenticated; --json carries the verdicts', async () => {
    const since = new Date(Date.now() - 1000).toISOString();
    const forged = await d.api('POST', '/v1/test/inbound', {
      agent: 'agent', from: 'no-reply@accounts2.example.com', subject: 'Your code', body_text: 'Your code is 777111', spf: 'fail', dkim: 'fail',
    });
    expect(forged.event_type).toBe('message.received.unauthenticated');
    const skipped = await d.cli(['wait', '--agent', 'agent', '--from', 'accounts2.example.com', '--since', since, '--extract', 'code', '--timeout', '2s']);
    expect(skipped.code, skipped.stdout).toBe(1);
    expect(skipped.stdout).not.toContain('777111');
    expect(skipped.stderr).toContain('failed authentication');
    const taken = await d.cli(['wait', '--agent', 'agent', '--from', 'accounts2.example.com', '--since', since, '--extract', 'code', '--timeout', '2s', '--include-unauthenticated', '--json']);
    expect(taken.code, taken.stderr).toBe(0);
    expect(taken.json()).toMatchObject({ code: '777111', spf_pass: false, dkim_pass: false, authentication_failed: true });

    // The real one arrives after the forged one: that is the one printed.
    await d.api('POST', '/v1/test/inbound', { agent: 'agent', from: 'no-reply@accounts2.example.com', subject: 'Your code', body_text: 'Your code is 482913', spf: 'pass' });
    const real = await d.cli(['wait', '--agent', 'agent', '--from', 'accounts2.example.com', '--since', since, '--extract', 'code', '--timeout', '5s']);
    expect(real.code, real.stderr).toBe(0);
    expect(real.stdout.trim()).toBe('482913');
  }, 90_000);

  it('mails.extract skips it by default, carries spf_pass / dkim_pass / authentication_failed, withholds it when read by id', async () => {
    await d.api('POST', '/v1/agents', { name: 'mcpx' });
    const good = await d.api('POST', '/v1/test/inbound', { agent: 'mcpx', from: 'no-reply@accounts3.example.com', subject: 'Your code', body_text: 'Your code is 482913', spf: 'pass' });
    const forged = await d.api('POST', '/v1/test/inbound', { agent: 'mcpx', from: 'no-reply@accounts3.example.com', subject: 'Verify your email', body_text: 'Your code is 777111. Verify: https://accounts3.example.com.evil.test/verify?t=1', spf: 'fail', dkim: 'fail' });
    const client = new Client({ name: 'mailagent-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${d.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${d.testKey}` } } }));
    try {
      // Listing the tools makes the SDK client check every structuredContent against its outputSchema.
      await client.listTools();
      const call = async (args: Record<string, unknown>) => {
        const r = (await client.callTool({ name: 'mails.extract', arguments: args })) as CallToolResult;
        expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
        return r.structuredContent as Record<string, unknown>;
      };
      const found = await call({ agent: 'mcpx', from: 'accounts3.example.com', kind: 'code' });
      expect(found).toMatchObject({ message_id: good.message_id, code: '482913', spf_pass: true, dkim_pass: null, authentication_failed: false });
      const link = (await client.callTool({ name: 'mails.extract', arguments: { agent: 'mcpx', from: 'accounts3.example.com', kind: 'link' } })) as CallToolResult;
      expect(link.isError).toBe(true);
      const byId = await call({ message_id: forged.message_id });
      expect(byId).toMatchObject({ code: null, link: null, codes: [], links: [], spf_pass: false, dkim_pass: false, authentication_failed: true });
      const opted = await call({ agent: 'mcpx', from: 'accounts3.example.com', kind: 'code', include_unauthenticated: true });
      expect(opted).toMatchObject({ message_id: forged.message_id, code: '777111', authentication_failed: true });
    } finally {
      await client.close();
    }
  }, 90_000);
});
