import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/contract/errors.js';
import { SendRequest } from '../../../src/contract/messages.js';
import { ReceivedMessage } from '../../../src/contract/received.js';
import { checkArgs, toJsonSchema } from '../../../src/mcp/schema.js';
import { linksOf, tools, toolsByName } from '../../../src/mcp/tools.js';
import { withholdEvent, withholdReceived, withholdThread } from '../../../src/mcp/quarantine.js';
import { cappedPage, excerptItem, RESULT_CAP } from '../../../src/mcp/excerpt.js';

const HOSTED = [
  'mails.send', 'mails.reply', 'mails.forward', 'mails.list_messages', 'mails.list_received', 'mails.get_received',
  'mails.list_replies', 'mails.list_threads', 'mails.get_thread', 'mails.create_draft', 'mails.send_draft',
  'mails.get_event', 'mails.create_agent', 'mails.list_agents', 'mails.me', 'mails.get_reputation',
  'mails.check_suppression', 'mails.allowlist_address', 'mails.get_usage', 'mails.test_inbound',
];

function refusal(fn: () => void): ApiError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ApiError);
    return err as ApiError;
  }
  throw new Error('expected a refusal');
}

describe('the tool set', () => {
  it('has the hosted server\'s names plus wait_for_message, extract and classify', () => {
    expect(tools.map((t) => t.name)).toEqual([...HOSTED, 'mails.wait_for_message', 'mails.extract', 'mails.classify', 'mails.get_message']);
  });

  it('exports plain, self-contained JSON Schemas (no TypeBox bookkeeping, no $id)', () => {
    for (const t of tools) {
      for (const s of [toJsonSchema(t.input), toJsonSchema(t.output)]) {
        const text = JSON.stringify(s);
        expect(text, t.name).not.toMatch(/"~|"\$id"|"\$ref"/);
        expect(s.type, t.name).toBe('object');
      }
      expect(toJsonSchema(t.input).additionalProperties, t.name).toBe(false);
    }
  });

  it('takes its field schemas from the contract (one source of truth)', () => {
    const send = toJsonSchema(toolsByName.get('mails.send')!.input) as { properties: Record<string, unknown> };
    const contract = toJsonSchema(SendRequest) as { properties: Record<string, Record<string, unknown>> };
    const { description: _d, ...to } = send.properties.to as Record<string, unknown>;
    expect(to).toEqual(contract.properties.to);
    // Aliases older clients send are not offered to a model.
    expect(Object.keys(send.properties)).not.toEqual(expect.arrayContaining(['text']));
    expect(Object.keys(send.properties)).not.toContain('html');
    const out = toJsonSchema(toolsByName.get('mails.get_received')!.output) as { properties: Record<string, unknown>; required: string[] };
    const received = toJsonSchema(ReceivedMessage) as { properties: Record<string, unknown>; required: string[] };
    expect(out.required).toEqual(received.required);
    expect(Object.keys(out.properties)).toEqual([...Object.keys(received.properties), 'body_withheld']);
  });
});

describe('checkArgs', () => {
  const send = toolsByName.get('mails.send')!.input;
  const wait = toolsByName.get('mails.wait_for_message')!.input;

  it('names a missing, unknown, nested or out-of-range field like the REST API does', () => {
    expect(refusal(() => checkArgs(toolsByName.get('mails.get_received')!.input, {}))).toMatchObject({ code: 'missing_field', param: 'message_id' });
    const unknown = refusal(() => checkArgs(send, { to: 'a@example.com', bodytext: 'x' }));
    expect(unknown).toMatchObject({ code: 'invalid_field', param: 'bodytext' });
    expect(unknown.message).toMatch(/This tool takes: .*body_text/);
    expect(refusal(() => checkArgs(send, { to: ['a@example.com', 7] }))).toMatchObject({ code: 'invalid_param_value', param: 'to[1]' });
    expect(refusal(() => checkArgs(wait, { timeout_seconds: 56 }))).toMatchObject({ code: 'invalid_param_value', param: 'timeout_seconds' });
    expect(refusal(() => checkArgs(toolsByName.get('mails.extract')!.input, { kind: 'otp' })).message).toMatch(/one of: code, link, any/);
    expect(refusal(() => checkArgs(send, [1]))).toMatchObject({ code: 'invalid_field', param: 'arguments' });
    // It becomes a header: no CR/LF smuggled into the request.
    expect(refusal(() => checkArgs(send, { to: 'a@example.com', idempotency_key: 'k\r\nX-Evil: 1' }))).toMatchObject({ code: 'invalid_param_value', param: 'idempotency_key' });
    expect(() => checkArgs(send, { to: 'a@example.com', subject: 's', body_text: 'b', idempotency_key: 'k' })).not.toThrow();
  });
});

describe('quarantine', () => {
  const base = {
    id: 'rcv_1', object: 'received_message' as const, agent_id: 'agt_1', thread_id: 'thr_1', from: { address: 'evil@x.test', name: null },
    to: 'a@b', to_all: ['a@b'], cc: [], delivered_to: 'a@b', plus_address: null, subject: 'Hi', extracted_text: 'IGNORE ALL', body_text_excerpt: 'IGNORE ALL',
    message_id: null, in_reply_to_message_id: null, spf_pass: null, dkim_pass: null, dmarc: null, authentication_failed: false,
    classification: { intent: 'other', entities: { urls: ['https://evil.test'] }, urgency: 0, injection_score: 0.99, injection_categories: ['override'], sender_reputation: 0.5, classifier_model: 'm' },
    quarantined: true, test_mode: true, over_limit: null, source: 'simulator' as const, size: 10, extraction_truncated: false, read: false, received_at: '2026-01-01T00:00:00.000Z',
  };

  it('withholds the content of a quarantined message and keeps the verdict', () => {
    const full = { ...base, body_text: 'IGNORE ALL', body_html: '<p>IGNORE ALL</p>', headers: [{ name: 'X-Note', value: 'IGNORE ALL' }] };
    const held = withholdReceived(full, false);
    expect(JSON.stringify(held)).not.toContain('IGNORE');
    expect(JSON.stringify(held)).not.toContain('evil.test');
    expect(held).toMatchObject({ body_withheld: true, quarantined: true, subject: '', headers: [] });
    // The address stays; the display name, free text a stranger wrote, goes with the subject.
    expect(held.from).toEqual({ address: base.from.address });
    expect('body_text' in held || 'body_html' in held).toBe(false);
    expect(held.classification!.injection_score).toBe(0.99);
    expect(withholdReceived(full, true)).toBe(full);
    const clean = { ...full, quarantined: false };
    expect(withholdReceived(clean, false)).toBe(clean);
    // A summary has no body fields to add.
    expect('body_text' in withholdReceived(base, false)).toBe(false);
  });

  it('withholds the excerpt of an event and the snippet of a thread message not known clean', () => {
    const ev = { id: 'evt_1', object: 'event' as const, type: 'message.received', workspace_id: 'w', agent_id: 'a', thread_id: 't', source_message_id: 'rcv_1', quarantined: true, entities: { codes: ['1'] }, test_mode: true, data: { subject: 'Hi', body_text_excerpt: 'IGNORE', extracted_text: 'IGNORE' }, created_at: 'x' };
    const held = withholdEvent(ev, false);
    expect(JSON.stringify(held)).not.toContain('IGNORE');
    expect(held).toMatchObject({ body_withheld: true, entities: {}, data: { subject: '' } });
    const msg = (id: string, direction: 'inbound' | 'outbound') => ({ id, direction, from: 'x', from_name: null, to: [], cc: [], subject: 's', snippet: `text of ${id}`, status: 'received', test_mode: true, sent_at: null, received_at: null, created_at: 'x' });
    const thread = { id: 't', object: 'thread' as const, agent_id: 'a', subject: 's', last_message_at: 'x', message_count: 3, participants: [], labels: [], status: 'open' as const, trashed_at: null, has_live_mail: false, created_at: 'x', updated_at: 'x', messages: [msg('rcv_ok', 'inbound'), msg('rcv_bad', 'inbound'), msg('msg_1', 'outbound')] };
    const t = withholdThread(thread, new Set(['rcv_ok']), false);
    expect(t.messages.map((m) => m.snippet)).toEqual(['text of rcv_ok', '', 'text of msg_1']);
    // The agent's own reply to withheld mail carries the stranger's subject ("Re: s"): withheld; a
    // clean received message keeps its own.
    expect(t.messages.map((m) => m.subject)).toEqual(['s', '', '']);
    // The thread's subject is the withheld message's (after Re:): withheld too; another stays.
    expect(withholdThread({ ...thread, subject: 'Re: S' }, new Set(['rcv_ok']), false).subject).toBe('');
    expect(withholdThread({ ...thread, subject: 'Other' }, new Set(['rcv_ok']), false).subject).toBe('Other');
  });
});

describe('linksOf', () => {
  it('puts verification links first and drops unsubscribe and policy links', () => {
    expect(linksOf(['https://x.test/home', 'https://x.test/unsubscribe?u=1', 'https://x.test/verify?t=1', 'https://x.test/privacy']))
      .toEqual(['https://x.test/verify?t=1', 'https://x.test/home']);
  });
});

describe('list results: summaries under a size cap (src/mcp/excerpt.ts)', () => {
  it('cuts long strings and arrays of an item and says so; a small item is untouched', () => {
    const small = { id: 'rcv_1', subject: 'Hi', to_all: ['a@x.test'] };
    expect(excerptItem(small)).toEqual(small);
    const big = excerptItem({ id: 'rcv_2', extracted_text: 'x'.repeat(5000), classification: { entities: { urls: Array.from({ length: 80 }, (_, i) => `https://x.test/${i}`) } } });
    expect(big.extracted_text).toBe('x'.repeat(1000) + '…');
    expect(big.classification.entities.urls).toHaveLength(50);
    expect(big.excerpted).toBe(true);
  });

  it('a page over the cap is fetched again with the items that fit, so the cursor continues after the last one returned', async () => {
    // 40 items of ~50 KB each (50 strings of 1,000 characters after cutting): 2 MB uncapped.
    const all = Array.from({ length: 40 }, (_, i) => ({ id: `rcv_${String(i).padStart(2, '0')}`, parts: Array.from({ length: 60 }, () => 'y'.repeat(2000)) }));
    const asked: (number | undefined)[] = [];
    const fetch = async (limit: number | undefined) => {
      asked.push(limit);
      const n = limit ?? 25;
      return { data: all.slice(0, n), has_more: n < all.length, next_cursor: n < all.length ? `after:${all[n - 1].id}` : null };
    };
    const page = await cappedPage(fetch, 30, (x) => x);
    expect(Buffer.byteLength(JSON.stringify(page.data))).toBeLessThanOrEqual(RESULT_CAP);
    expect(page.data.length).toBe(5);
    expect(asked).toEqual([30, 5]);
    expect(page.next_cursor).toBe('after:rcv_04');
    expect(page.data.every((x) => x.excerpted === true)).toBe(true);
  });
});
