import { describe, expect, it } from 'vitest';
import { contentDisposition } from '../../../src/server/http/download.js';

describe('contentDisposition (names from mail)', () => {
  it('keeps a plain name as it is, and a non-ASCII one exactly in filename*', () => {
    expect(contentDisposition('report.pdf')).toBe('attachment; filename="report.pdf"');
    expect(contentDisposition('été.pdf')).toBe(`attachment; filename="_t_.pdf"; filename*=UTF-8''%C3%A9t%C3%A9.pdf`);
  });

  it('never carries control or bidi characters, not even percent-encoded', () => {
    const h = contentDisposition('invoice\u001b[2J\u0007\u202Efdp.exe');
    expect(h).not.toMatch(/%1B|%07|%E2%80%AE/i);
    expect(h).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    expect(h).toBe(`attachment; filename="invoice__2J__fdp.exe"; filename*=UTF-8''invoice_%5B2J__fdp.exe`);
  });

  it('never carries a path: separators become "_" in both names', () => {
    const h = contentDisposition('../../../../etc/passwd');
    expect(h).toBe('attachment; filename=".._.._.._.._etc_passwd"');
    const w = contentDisposition('..\\..\\évil.txt');
    expect(w).not.toMatch(/%2F|%5C|\/|\\/i);
  });
});
