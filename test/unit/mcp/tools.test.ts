import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/contract/errors.js';
import { SendRequest } from '../../../src/contract/messages.js';
import { ReceivedMessage } from '../../../src/contract/received.js';
import { checkArgs, toJsonSchema } from '../../../src/mcp/schema.js';
import { linksOf, tools, toolsByName } from '../../../src/mcp/tools.js';
import { withholdEvent, withholdReceived, withholdThread } from '../../../src/mcp/quarantine.js';

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
    expect(tools.map((t) => t.name)).toEqual([...HOSTED, 'mails.wait_for_message', 'mails.extract', 'mails.classify']);
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
    message_id: null, in_reply_to_message_id: null, spf_pass: null, dkim_pass: null, dmarc: null,
    classification: { intent: 'other', entities: { urls: ['https://evil.test'] }, urgency: 0, injection_score: 0.99, injection_categories: ['override'], sender_reputation: 0.5, classifier_model: 'm' },
    quarantined: true, test_mode: true, over_limit: null, source: 'simulator' as const, size: 10, extraction_truncated: false, read: false, received_at: '2026-01-01T00:00:00.000Z',
  };

  it('withholds the content of a quarantined message and keeps the verdict', () => {
    const full = { ...base, body_text: 'IGNORE ALL', body_html: '<p>IGNORE ALL</p>', headers: [{ name: 'X-Note', value: 'IGNORE ALL' }] };
    const held = withholdReceived(full, false);
    expect(JSON.stringify(held)).not.toContain('IGNORE');
    expect(JSON.stringify(held)).not.toContain('evil.test');
    expect(held).toMatchObject({ body_withheld: true, quarantined: true, subject: 'Hi', headers: [] });
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
    expect(held).toMatchObject({ body_withheld: true, entities: {}, data: { subject: 'Hi' } });
    const msg = (id: string, direction: 'inbound' | 'outbound') => ({ id, direction, from: 'x', from_name: null, to: [], cc: [], subject: 's', snippet: `text of ${id}`, status: 'received', test_mode: true, sent_at: null, received_at: null, created_at: 'x' });
    const thread = { id: 't', object: 'thread' as const, agent_id: 'a', subject: 's', last_message_at: 'x', message_count: 3, participants: [], labels: [], status: 'open' as const, trashed_at: null, has_live_mail: false, created_at: 'x', updated_at: 'x', messages: [msg('rcv_ok', 'inbound'), msg('rcv_bad', 'inbound'), msg('msg_1', 'outbound')] };
    const t = withholdThread(thread, new Set(['rcv_ok']), false);
    expect(t.messages.map((m) => m.snippet)).toEqual(['text of rcv_ok', '', 'text of msg_1']);
  });
});

describe('linksOf', () => {
  it('puts verification links first and drops unsubscribe and policy links', () => {
    expect(linksOf(['https://x.test/home', 'https://x.test/unsubscribe?u=1', 'https://x.test/verify?t=1', 'https://x.test/privacy']))
      .toEqual(['https://x.test/verify?t=1', 'https://x.test/home']);
  });
});
