import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { logMessages } from '../../../src/server/message-log.js';
import type { AppContext } from '../../../src/services/context.js';

describe('server/message-log: one line per message, mail-derived text neutralised', () => {
  it('shows bidi and C1 controls and escape sequences in from/to/subject instead of writing them', () => {
    const lines: { obj: Record<string, unknown>; msg: string }[] = [];
    const bus = new EventEmitter();
    const ctx = { bus, log: { info: (obj: Record<string, unknown>, msg: string) => lines.push({ obj, msg }) } } as unknown as AppContext;
    const stop = logMessages(ctx);
    bus.emit('event', {
      type: 'message.received', source_message_id: 'rcv_1', test_mode: false, intent: 'request', quarantined: false,
      data: { from: 'a\u202eb@x.test', to: ['me@y.test', 'c\u009bd@y.test'], subject: 'Invoice \u202egpj.exe \x1b[31mred\r\nBcc: x' },
    });
    stop();
    bus.emit('event', { type: 'message.received', source_message_id: 'rcv_2', data: {} });
    expect(lines).toHaveLength(1);
    expect(lines[0].msg).toBe('mail received');
    expect(lines[0].obj).toMatchObject({
      id: 'rcv_1', from: 'a<U+202E>b@x.test', to: ['me@y.test', 'c<U+009B>d@y.test'],
      subject: 'Invoice <U+202E>gpj.exe ^[[31mred Bcc: x', verdict: 'received, request',
    });
  });

  it('builds no line when info is not logged', () => {
    const lines: unknown[] = [];
    const bus = new EventEmitter();
    let level = 'warn';
    const log = { info: (obj: unknown) => lines.push(obj), isLevelEnabled: (l: string) => l === 'info' ? level === 'info' : true };
    const stop = logMessages({ bus, log } as unknown as AppContext);
    const ev = { type: 'message.sent', source_message_id: 'msg_1', test_mode: true, data: { from: 'a@x.test', to: ['b@y.test'], subject: 's', status: 'sent' } };
    bus.emit('event', ev);
    expect(lines).toHaveLength(0);
    level = 'info';
    bus.emit('event', ev);
    expect(lines).toHaveLength(1);
    stop();
  });
});
