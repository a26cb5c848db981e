import { defineHandlers } from '../handler.js';
import { resolveUnsubscribe, takePublicSlot, unsubscribe } from '../../../services/unsubscribe.js';
import { billingPageView } from '../../../services/usage.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`
    + `<meta name="robots" content="noindex"><title>${esc(title)}</title>`
    + `<style>body{font-family:system-ui,sans-serif;max-width:34rem;margin:4rem auto;padding:0 1rem;line-height:1.5}button{font-size:1rem;padding:.5rem 1rem}</style>`
    + `</head><body><h1>${esc(title)}</h1>${body}</body></html>`;
}

/**
 * The headers of every public page: no framing (a page with an Unsubscribe button inside another
 * site's frame could be clicked for the recipient: clickjacking), no scripts, forms posting only
 * back here, and the page itself never cached.
 */
const PUBLIC_PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

export const publicHandlers = defineHandlers({
  // A GET never unsubscribes: link scanners and prefetchers follow links (RFC 8058 §1).
  'unsubscribe.page': async ({ ctx, params, req, reply }) => {
    takePublicSlot(ctx, req.ip);
    const t = await resolveUnsubscribe(ctx, params.token);
    reply.headers(PUBLIC_PAGE_HEADERS);
    const who = t.recipient
      ? `<p>Stop mail from <b>${esc(t.agentEmail)}</b> to <b>${esc(t.recipient)}</b>?</p>`
      // A message link is in every recipient's copy: it lists no address (a Bcc recipient's would show).
      : `<p>This message went to several people. Stop mail from <b>${esc(t.agentEmail)}</b> to your address:</p>`
        + '<p><label>Your address <input type="email" name="address" required maxlength="320" autocomplete="email"></label></p>';
    return page('Unsubscribe', `<form method="post">${who}<p><button type="submit">Unsubscribe</button></p></form>`);
  },
  'unsubscribe.confirm': async ({ ctx, params, body, req, reply }) => {
    takePublicSlot(ctx, req.ip);
    const form = body && typeof body === 'object' ? (body as Record<string, unknown>) : {};
    const address = typeof form.address === 'string' ? form.address : undefined;
    const r = await unsubscribe(ctx, params.token, req.ip, address);
    reply.headers(PUBLIC_PAGE_HEADERS);
    // The same answer whether or not a typed address was a recipient (services/unsubscribe.ts).
    return page('Unsubscribed', r.recipient
      ? `<p><b>${esc(r.address)}</b> will get no more mail from <b>${esc(r.agentEmail)}</b>.</p>`
      : `<p>If this message was sent to <b>${esc(r.address)}</b>, that address will get no more mail from <b>${esc(r.agentEmail)}</b>.</p>`);
  },
  // The portal's page (POST /v1/billing/portal makes its signed `session`). Without a valid
  // session it names no workspace and links nowhere: the address is public, and a page on this
  // origin with a "Back" link to any URL would be a phishing aid (an outside tester's finding).
  'billing.page': async ({ ctx, query, req, reply }) => {
    takePublicSlot(ctx, req.ip);
    const v = await billingPageView(ctx, query.session);
    reply.headers(PUBLIC_PAGE_HEADERS);
    const intro = '<p>This is a self-hosted mailagent instance: there is no billing provider and nothing is charged.</p>';
    if (v.refused) {
      const why = v.refused === 'expired' ? '<p>This billing link has expired (links last one hour).</p>'
        : v.refused === 'invalid' ? '<p>This billing link is not valid.</p>' : '';
      return page('Billing', `${intro}${why}<p>Open this page through <code>POST /v1/billing/portal</code> (the web inbox's billing link) to see the workspace's plan. `
        + 'The operator changes the plan with <code>mailagent admin tier &lt;free|pro|scale&gt;</code>.</p>');
    }
    const back = v.returnUrl ? `<p><a href="${esc(v.returnUrl)}">Back</a></p>` : '';
    return page('Billing', `${intro}<p>The workspace is on the <b>${esc(v.tier ?? '')}</b> tier. The operator changes it with <code>mailagent admin tier &lt;free|pro|scale&gt;</code>.</p>${back}`);
  },
});
