import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
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

  it('builds no line at --log-level silent, where the logger is fastify\'s stand-in without isLevelEnabled', () => {
    const app = Fastify({ logger: false }); // what the daemon's ctx.log is at --log-level silent
    expect((app.log as { isLevelEnabled?: unknown }).isLevelEnabled).toBeUndefined();
    const bus = new EventEmitter();
    let reads = 0;
    const ev = { type: 'message.sent', source_message_id: 'msg_1', test_mode: true, get data() { reads++; return { from: 'a@x.test', to: ['b@y.test'], subject: 's', status: 'sent' }; } };
    for (const [logLevel, built] of [['silent', 0], ['warn', 0], ['error', 0], ['info', 1], ['debug', 1]] as const) {
      reads = 0;
      const stop = logMessages({ bus, log: app.log } as unknown as AppContext, logLevel);
      bus.emit('event', ev);
      stop();
      expect(reads, logLevel).toBe(built);
    }
  });
});
