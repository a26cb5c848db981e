import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRelay, RelayError } from '../../../src/mail/transport-relay.js';

// A real relay over TCP that offers AUTH but no STARTTLS at all: the password must not be sent.
const auths: string[] = [];
const messages: string[] = [];
let server: SMTPServer;
let url: string;
beforeAll(async () => {
  server = new SMTPServer({
    disabledCommands: ['STARTTLS'], authOptional: true, disableReverseLookup: true, logger: false,
    onAuth: (a, _s, cb) => { auths.push(`${a.username}:${a.password}`); cb(null, { user: a.username }); },
    onData: (stream, _s, cb) => { stream.on('data', () => undefined); stream.on('end', () => { messages.push('x'); cb(null, 'Ok: queued as T1'); }); },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  url = `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
});
afterAll(async () => new Promise<void>((resolve) => server.close(() => resolve())));

const RAW = Buffer.from('From: a@example.com\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nhello\r\n');

describe('relay credentials and STARTTLS', () => {
  it('with a user and password on smtp://, a relay without STARTTLS gets no AUTH and no message; the error says why', async () => {
    const r = createRelay(url.replace('smtp://', 'smtp://user:S3cretPW@'), { connectionTimeoutMs: 5_000 });
    try {
      const err = await r.send({ from: 'a@example.com', to: ['b@example.com'] }, RAW).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(RelayError);
      expect((err as RelayError).kind).toBe('unavailable');
      expect((err as RelayError).message, (err as Error).message).toMatch(/STARTTLS/);
      expect(auths).toEqual([]);
      expect(messages).toHaveLength(0);
    } finally {
      r.close();
    }
  });

  it('without credentials, plain smtp:// still works (nothing secret to protect)', async () => {
    const r = createRelay(url, { connectionTimeoutMs: 5_000 });
    try {
      const res = await r.send({ from: 'a@example.com', to: ['b@example.com'] }, RAW);
      expect(res.accepted).toEqual(['b@example.com']);
      expect(messages).toHaveLength(1);
    } finally {
      r.close();
    }
  });

  it('?requireTLS=false opts out (a relay on this machine): AUTH in clear text, as asked', async () => {
    const r = createRelay(url.replace('smtp://', 'smtp://user:pw@') + '?requireTLS=false', { connectionTimeoutMs: 5_000 });
    try {
      await r.send({ from: 'a@example.com', to: ['b@example.com'] }, RAW);
      expect(auths).toEqual(['user:pw']);
    } finally {
      r.close();
    }
  });
});
