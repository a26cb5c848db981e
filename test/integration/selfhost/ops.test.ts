import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { loadConfig, type ConfigInput } from '../../../src/server/config.js';
import { Daemon } from '../../../src/server/daemon.js';
import { DEFAULT_WORKER_YOUNG_MB } from '../../../src/server/pipeline/index.js';
import { HELPER_THREAD_YOUNG_MB } from '../../../src/shared/thread-heap.js';
import { SmtpPipe } from '../inbound/smtp-client.js';
import { rawMessage } from './helpers.js';

interface Family { name: string; type: string; metrics: { labels?: Record<string, string>; value?: string; buckets?: Record<string, string>; count?: string }[] }

let daemon: Daemon | null = null;
let dir = '';
let free = 100 * 1024 ** 3;

async function start(over: ConfigInput = {}) {
  dir = mkdtempSync(join(tmpdir(), 'mailagent-ops-'));
  const config = loadConfig({ dataDir: dir, port: 0, smtpPort: 0, logLevel: 'silent', ...over }, {});
  daemon = await Daemon.create(config, { quiet: true, freeSpace: async () => free });
  const addr = await daemon.start();
  const smtpPort = Number(addr.smtp!.split(':').pop());
  return { url: addr.http, smtpPort, live: daemon.bootstrapped!.keys.live.key, test: daemon.bootstrapped!.keys.test.key, agent: daemon.bootstrapped!.agent.email };
}

afterEach(async () => {
  await daemon?.stop();
  daemon = null;
  free = 100 * 1024 ** 3;
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const scrape = async (url: string, headers: Record<string, string> = {}) => {
  const res = await fetch(url + '/metrics', { headers });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
};
const family = (fams: Family[], name: string) => fams.find((f) => f.name === name);
const valueOf = (f: Family | undefined, labels: Record<string, string>) =>
  Number(f?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value ?? NaN);

describe('Prometheus /metrics', () => {
  it('serves the text format on loopback; every family parses; mail, SMTP, HTTP, queues, database, process and event loop are there', async () => {
    const d = await start();
    const smtp = await SmtpPipe.open(d.smtpPort);
    expect(await smtp.send('alice@example.com', [d.agent], rawMessage({ to: d.agent, subject: 'metrics' }))).toMatch(/^250/);
    expect(await smtp.cmd('RCPT TO:<nobody@elsewhere.example>')).toMatch(/^5/); // refused (no MAIL FROM → 503, or relay 550)
    await smtp.quit();
    // The 250 comes before processing (docs/inbound.md → Durability); a read of received mail
    // waits for it, so the counters below include the message (a cached read no longer does).
    expect((await fetch(d.url + '/v1/messages/received', { headers: { authorization: `Bearer ${d.live}` } })).status).toBe(200);
    const agents = await fetch(d.url + '/v1/agents', { headers: { authorization: `Bearer ${d.live}` } });
    expect(agents.status).toBe(200);
    const refused = await fetch(d.url + '/v1/messages', { method: 'POST', headers: { authorization: `Bearer ${d.test}`, 'content-type': 'application/json' }, body: JSON.stringify({ to: ['not an address'], subject: 'x', text: 'y' }) });
    expect(refused.status).toBe(400);

    // The received counter is fed by the event bus; on PostgreSQL events reach it through the
    // store's commit feed (server/event-relay.ts), a moment after the commit: scrape until it has.
    let m = await scrape(d.url);
    let fams = parsePrometheusTextFormat(m.text) as Family[];
    for (let i = 0; i < 50 && !family(fams, 'mailagent_messages_received_total')?.metrics.length; i++) {
      await new Promise((r) => setTimeout(r, 100));
      m = await scrape(d.url);
      fams = parsePrometheusTextFormat(m.text) as Family[];
    }
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/^text\/plain; version=0\.0\.4/);
    // Offline, SPF and DKIM cannot pass: the message arrives as message.received.unauthenticated.
    const received = family(fams, 'mailagent_messages_received_total')!.metrics.reduce((n, x) => n + Number(x.value), 0);
    expect(received).toBe(1);
    expect(family(fams, 'mailagent_classifier_verdicts_total')!.metrics.length).toBeGreaterThan(0);
    expect(family(fams, 'mailagent_messages_quarantined_total')).toBeDefined();
    expect(valueOf(family(fams, 'mailagent_smtp_sessions_total'), {})).toBeGreaterThanOrEqual(1);
    expect(valueOf(family(fams, 'mailagent_http_requests_total'), { method: 'GET', route: '/v1/agents', status: '200' })).toBe(1);
    expect(family(fams, 'mailagent_messages_refused_total')!.metrics.some((x) => x.labels?.channel === 'api')).toBe(true);
    const hist = family(fams, 'mailagent_http_request_duration_seconds')!;
    expect(hist.type).toBe('HISTOGRAM');
    // parse-prometheus-text-format folds labelled histograms into one sample (a limit of that
    // parser), so the per-route count is read from its exposition line.
    expect(m.text).toMatch(/^mailagent_http_request_duration_seconds_count\{method="GET",route="\/v1\/agents",status="200"\} 1$/m);
    expect(family(fams, 'mailagent_webhook_delivery_duration_seconds')!.type).toBe('HISTOGRAM');
    expect(valueOf(family(fams, 'mailagent_queue_depth'), { queue: 'scheduled_sends' })).toBe(0);
    expect(valueOf(family(fams, 'mailagent_queue_depth'), { queue: 'webhook_deliveries' })).toBe(0);
    expect(valueOf(family(fams, 'mailagent_database_bytes'), { part: 'file' })).toBeGreaterThan(4096);
    expect(valueOf(family(fams, 'mailagent_disk_free_bytes'), {})).toBe(free);
    expect(family(fams, 'nodejs_eventloop_lag_seconds')).toBeDefined();
    expect(family(fams, 'process_cpu_user_seconds_total')).toBeDefined();
    expect(family(fams, 'process_resident_memory_bytes')).toBeDefined();
    // Transaction re-runs per kind (PostgreSQL; SQLite never re-runs and exposes the families empty).
    for (const f of ['transactions', 'transaction_retries', 'transaction_serial_lane', 'transaction_failures']) {
      expect(m.text).toContain(`# TYPE mailagent_db_${f}_total counter`);
    }

    // /v1/metrics stays the spec's JSON behind a key.
    const json = await fetch(d.url + '/v1/metrics', { headers: { authorization: `Bearer ${d.live}` } });
    expect(json.status).toBe(200);
    expect(json.headers.get('content-type')).toMatch(/json/);
  });

  it('mailagent_thread_heap_bytes: the V8 heap of each thread (main, pool workers, inbound queue writer, WAL checkpointer); the young generations under their caps', async () => {
    const d = await start({ pipelineWorkers: 2 });
    // A worker still starting has no heap to report yet (it is left out of the scrape).
    await daemon!.pipeline.ready();
    const fams = parsePrometheusTextFormat((await scrape(d.url)).text) as Family[];
    const heap = family(fams, 'mailagent_thread_heap_bytes')!;
    expect(heap.type).toBe('GAUGE');
    // One pool worker of the two is started; the second only when mail waits for one (pipeline/index.ts WORKERS_AT_START).
    expect(valueOf(heap, { thread: 'pipeline-1', kind: 'used' })).toBeNaN();
    for (const thread of ['main', 'pipeline-0', 'queue-writer', 'checkpointer']) {
      const used = valueOf(heap, { thread, kind: 'used' });
      expect(used, thread).toBeGreaterThan(1024 * 1024);
      expect(valueOf(heap, { thread, kind: 'total' }), thread).toBeGreaterThanOrEqual(used);
      expect(valueOf(heap, { thread, kind: 'limit' }), thread).toBeGreaterThan(used);
    }
    // V8's new space is 2/3 of the young generation cap (src/server/pipeline/index.ts).
    expect(valueOf(heap, { thread: 'pipeline-0', kind: 'young' })).toBeLessThanOrEqual(DEFAULT_WORKER_YOUNG_MB * 2 / 3 * 1024 * 1024);
    for (const thread of ['queue-writer', 'checkpointer']) expect(valueOf(heap, { thread, kind: 'young' })).toBeLessThanOrEqual(HELPER_THREAD_YOUNG_MB * 2 / 3 * 1024 * 1024);
  });

  it('counts webhook deliveries by outcome with their latency', async () => {
    const { createServer } = await import('node:http');
    const sink = createServer((_req, res) => res.writeHead(200).end('ok'));
    await new Promise<void>((r) => sink.listen(0, '127.0.0.1', r));
    const port = (sink.address() as { port: number }).port;
    try {
      const d = await start();
      const hook = await fetch(d.url + '/v1/webhooks', { method: 'POST', headers: { authorization: `Bearer ${d.live}`, 'content-type': 'application/json' }, body: JSON.stringify({ url: `http://127.0.0.1:${port}/h`, event_types: ['message.received', 'message.received.unauthenticated'] }) });
      expect(hook.status).toBe(201);
      const smtp = await SmtpPipe.open(d.smtpPort);
      expect(await smtp.send('alice@example.com', [d.agent], rawMessage({ to: d.agent, subject: 'hook' }))).toMatch(/^250/);
      await smtp.quit();
      let fams: Family[] = [];
      for (let i = 0; i < 50; i++) {
        fams = parsePrometheusTextFormat((await scrape(d.url)).text) as Family[];
        if (valueOf(family(fams, 'mailagent_webhook_deliveries_total'), { outcome: 'succeeded' }) >= 1) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(valueOf(family(fams, 'mailagent_webhook_deliveries_total'), { outcome: 'succeeded' })).toBe(1);
      expect(family(fams, 'mailagent_webhook_delivery_duration_seconds')!.metrics[0].count).toBe('1');
    } finally {
      sink.close();
    }
  });

  it('with a bearer token configured, /metrics needs it (also from loopback)', async () => {
    const d = await start({ metricsToken: 'a-long-enough-metrics-token' });
    const none = await scrape(d.url);
    expect(none.status).toBe(401);
    expect(JSON.parse(none.text).error.code).toBe('missing_authorization');
    // It says what it wants: the metrics token, not an API key.
    expect(JSON.parse(none.text).error.message).toMatch(/^No metrics token given: .*MAILAGENT_METRICS_TOKEN/);
    const wrong = await scrape(d.url, { authorization: 'Bearer wrong-token-wrong-token' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text).error.message).toMatch(/not the metrics token/);
    expect((await scrape(d.url, { authorization: 'Bearer a-long-enough-metrics-token' })).status).toBe(200);
  });

  it('without a token, a caller that is not on loopback gets 404', async () => {
    const ip = Object.values(networkInterfaces()).flat().find((i) => i && i.family === 'IPv4' && !i.internal)?.address;
    if (!ip) return void console.warn('skipped: no non-loopback IPv4 interface on this machine');
    const d = await start({ host: '0.0.0.0' });
    const port = new URL(d.url).port;
    const res = await fetch(`http://${ip}:${port}/metrics`);
    expect(res.status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(200);
  });

  it('behind a declared trusted proxy, the client address is the one X-Forwarded-For names: a public client gets 404 though the proxy connects from loopback', async () => {
    const d = await start({ trustedProxies: '127.0.0.1' });
    // What nginx sends with its defaults (Host: $proxy_host, i.e. 127.0.0.1:7420) for a public client.
    const fwd = (xff: string) => ({ 'x-forwarded-for': xff, 'x-forwarded-proto': 'https' });
    for (const xff of ['203.0.113.9', '127.0.0.1, 203.0.113.9', '10.1.2.3']) {
      const res = await scrape(d.url, fwd(xff));
      expect(res.status, xff).toBe(404);
      expect(JSON.parse(res.text).error.code).toBe('resource_not_found');
      expect(res.text).not.toContain('mailagent_');
    }
    // A spoofed loopback entry before the real one does not help: the proxy appends the address it saw.
    expect((await scrape(d.url, fwd('127.0.0.1, 198.51.100.7'))).status).toBe(404);
    // A local scrape through the proxy (client 127.0.0.1), or straight to the port, still works.
    expect((await scrape(d.url, fwd('127.0.0.1'))).status).toBe(200);
    expect((await scrape(d.url)).status).toBe(200);
  });

  it('behind a declared trusted proxy with a metrics token, the token works for a public client', async () => {
    const d = await start({ trustedProxies: '127.0.0.1', metricsToken: 'a-long-enough-metrics-token' });
    const h = { 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https' };
    expect((await scrape(d.url, h)).status).toBe(401);
    const ok = await scrape(d.url, { ...h, authorization: 'Bearer a-long-enough-metrics-token' });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('# TYPE mailagent_');
  });

  it('--metrics-listen serves /metrics and /health/ready on its own address', async () => {
    await start({ metricsListen: '127.0.0.1:0' });
    const addr = daemon!.listenerAddress('metrics')!;
    const m = await fetch(`http://${addr}/metrics`);
    expect(m.status).toBe(200);
    expect(parsePrometheusTextFormat(await m.text()).length).toBeGreaterThan(10);
    const r = await fetch(`http://${addr}/health/ready`);
    expect(r.status).toBe(200);
    // Refusals are the API's error envelope there too.
    const nf = await fetch(`http://${addr}/v1/agents`);
    expect(nf.status).toBe(404);
    const nfBody = await nf.json() as { error: { code: string; message: string; request_id: string } };
    expect(nfBody.error).toMatchObject({ code: 'resource_not_found', request_id: nf.headers.get('x-request-id') });
    expect(nfBody.error.message).toContain('GET /metrics and GET /health/ready');
    const post = await fetch(`http://${addr}/metrics`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect((await post.json() as { error: { code: string } }).error.code).toBe('method_not_allowed');
  });
});

describe('readiness and the low-disk guard', () => {
  it('ready: named checks for the database, disk, listeners and workers; others can register theirs', async () => {
    const d = await start();
    const r = await fetch(d.url + '/health/ready');
    expect(r.status).toBe(200);
    const body = await r.json() as { status: string; checks: { name: string; ok: boolean }[] };
    expect(body.status).toBe('ready');
    expect(body.checks.map((c) => c.name).sort()).toEqual(['database', 'disk', 'http', 'smtp', 'workers']);
    daemon!.ops.readiness.register('pipeline', () => ({ ok: false, detail: 'worker pool down' }));
    const bad = await fetch(d.url + '/health/ready');
    expect(bad.status).toBe(503);
    expect((await bad.json() as { error: { message: string } }).error.message).toMatch(/pipeline: worker pool down/);
    // Liveness is unaffected.
    expect((await fetch(d.url + '/v1/health')).status).toBe(200);
  });

  it('below the guard: readiness fails, SMTP answers 452 4.3.1, sends answer 503 with the envelope; nothing is stored', async () => {
    const d = await start({ minFreeDiskMb: 256 });
    free = 10 * 1024 * 1024;
    await new Promise((r) => setTimeout(r, 2100)); // the guard re-reads free space every 2 s
    const ready = await fetch(d.url + '/health/ready');
    expect(ready.status).toBe(503);
    const body = await ready.json() as { error: { code: string }; checks: { name: string; ok: boolean; detail: string }[] };
    expect(body.error.code).toBe('service_unavailable');
    expect(body.checks.find((c) => c.name === 'disk')).toMatchObject({ ok: false });
    expect(body.checks.find((c) => c.name === 'disk')!.detail).toMatch(/10\.0 MiB free, below the 256\.0 MiB guard/);

    const smtp = await SmtpPipe.open(d.smtpPort);
    expect(await smtp.cmd('MAIL FROM:<alice@example.com>')).toMatch(/^452 4\.3\.1 /);
    await smtp.quit();
    const send = await fetch(d.url + '/v1/messages', { method: 'POST', headers: { authorization: `Bearer ${d.test}`, 'content-type': 'application/json' }, body: JSON.stringify({ to: ['bob@example.com'], subject: 'x', text: 'y' }) });
    expect(send.status).toBe(503);
    expect(send.headers.get('retry-after')).toBe('300');
    const err = await send.json() as { error: { code: string; message: string; request_id: string } };
    expect(err.error.code).toBe('service_unavailable');
    expect(err.error.message).toMatch(/low on disk space/);
    const list = await fetch(d.url + '/v1/messages', { headers: { authorization: `Bearer ${d.test}` } });
    expect((await list.json() as { data: unknown[] }).data).toEqual([]);
    // The simulator stores mail as SMTP does: refused the same way (it stored mail while SMTP answered 452).
    const sim = await fetch(d.url + '/v1/test/inbound', { method: 'POST', headers: { authorization: `Bearer ${d.test}`, 'content-type': 'application/json' }, body: JSON.stringify({ agent: 'agent', from: 'alice@example.com', subject: 'x', body_text: 'y' }) });
    expect(sim.status).toBe(503);
    const simErr = await sim.json() as { error: { code: string; message: string } };
    expect(simErr.error.code).toBe('service_unavailable');
    expect(simErr.error.message).toMatch(/low on disk space .*nothing was stored/);
    const inbox = await fetch(d.url + '/v1/messages/received', { headers: { authorization: `Bearer ${d.test}` } });
    expect((await inbox.json() as { data: unknown[] }).data).toEqual([]);

    free = 100 * 1024 ** 3;
    await new Promise((r) => setTimeout(r, 2100));
    expect((await fetch(d.url + '/health/ready')).status).toBe(200);
    const smtp2 = await SmtpPipe.open(d.smtpPort);
    expect(await smtp2.send('alice@example.com', [d.agent], rawMessage({ to: d.agent, subject: 'after' }))).toMatch(/^250/);
    await smtp2.quit();
  });
});
