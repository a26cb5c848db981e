import { describe, expect, it } from 'vitest';
import { spfRecord } from '../../../src/services/domains.js';

// The SPF record `domains add` suggests (docs/resources.md → Domains): where mail reaches the internet from.
describe('spfRecord', () => {
  const loopback = 'http://127.0.0.1:7420';
  it('a known relay provider: its include, not the submission host', () => {
    expect(spfRecord({ relayUrl: 'smtps://apikey:secret-pw@smtp.sendgrid.net:465', publicUrl: loopback }).value).toBe('v=spf1 include:sendgrid.net ~all');
    expect(spfRecord({ relayUrl: 'smtp://u:p@email-smtp.eu-west-1.amazonaws.com:587', publicUrl: loopback }).value).toBe('v=spf1 include:amazonses.com ~all');
    expect(spfRecord({ relayUrl: 'smtp://u:p@smtp.gmail.com:587', publicUrl: loopback }).value).toBe('v=spf1 include:_spf.google.com ~all');
  });

  it('another relay: its host, with a note to prefer the provider\'s own record; never the password', () => {
    const r = spfRecord({ relayUrl: 'smtps://user:secret-pw@smtp.example.net:465', publicUrl: loopback });
    expect(r.value).toBe('v=spf1 a:smtp.example.net ~all');
    expect(r.note).toMatch(/relay smtp\.example\.net.*include:/);
    expect(JSON.stringify(r)).not.toContain('secret-pw');
    expect(spfRecord({ relayUrl: 'smtp://93.184.216.34:25', publicUrl: loopback }).value).toBe('v=spf1 ip4:93.184.216.34 ~all');
  });

  it('no relay (or one on this machine): the public URL\'s host when it is on the internet', () => {
    const r = spfRecord({ relayUrl: null, publicUrl: 'https://mail-api.example.com' });
    expect(r.value).toBe('v=spf1 a:mail-api.example.com ~all');
    expect(r.note).toMatch(/No relay is configured/);
    expect(spfRecord({ relayUrl: 'smtp://127.0.0.1:25', publicUrl: 'https://93.184.215.14' }).value).toBe('v=spf1 ip4:93.184.215.14 ~all');
    expect(spfRecord({ relayUrl: null, publicUrl: 'http://[2606:2800:220:1::1]:7420' }).value).toBe('v=spf1 ip6:2606:2800:220:1::1 ~all');
  });

  it('loopback-only (the default install): no loopback or private address is suggested, and the note says the record cannot be right', () => {
    for (const [relayUrl, publicUrl] of [[null, loopback], [null, 'http://localhost:7420'], [null, 'http://[::1]:7420'], [null, 'http://10.0.0.5:7420'], ['smtp://127.0.0.1:2525', 'http://mailagent.local:7420']] as const) {
      const r = spfRecord({ relayUrl, publicUrl });
      expect(r.value, publicUrl).toBe('v=spf1 ~all');
      expect(r.note, publicUrl).toMatch(/^This cannot be right yet: .*not on the internet.*--relay.*--public-url/);
    }
  });
});
