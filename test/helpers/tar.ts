import { gunzipSync } from 'node:zlib';

/** The regular files of a (gzipped) ustar archive, read with node:zlib and a 512-byte-block walk (the shared corpora). */
export function* tarEntries(gz: Buffer): Generator<{ name: string; data: Buffer }> {
  const tar = gunzipSync(gz);
  for (let off = 0; off + 512 <= tar.length;) {
    const h = tar.subarray(off, off + 512);
    if (h.every((b) => b === 0)) break;
    const str = (a: number, b: number) => h.subarray(a, b).toString('utf8').replace(/\0.*$/s, '');
    const size = parseInt(str(124, 136).trim() || '0', 8);
    const type = String.fromCharCode(h[156] || 48);
    const name = (str(345, 500) ? str(345, 500) + '/' : '') + str(0, 100);
    if (type === '0') yield { name, data: tar.subarray(off + 512, off + 512 + size) };
    off += 512 + Math.ceil(size / 512) * 512;
  }
}
