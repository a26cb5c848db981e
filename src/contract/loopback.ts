/**
 * Whether a host name or address is this machine's loopback: `localhost`, `::1`, `127.x.x.x`.
 * Shared by the daemon (listen addresses, /metrics callers) and the CLI (which profiles follow a
 * restarted local daemon).
 */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** The URL when `s` is an http:// or https:// URL, else null (a setting or flag that names a daemon). */
export function httpUrl(s: string): URL | null {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/** Whether a URL's host is this machine's loopback (`http://127.0.0.1:7420`, `http://[::1]:7420`); false for no URL. */
export function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopbackHost(new URL(url).hostname.replace(/^\[|\]$/g, ''));
  } catch {
    return false;
  }
}
