// The mailagent web inbox: one ES module, no framework, no build step.
// Safety rules of this file: every node is made with textContent / setAttribute (no string is ever parsed as HTML),
// mail HTML is only ever shown in a sandboxed iframe served by the API, and every state change
// carries the session's X-CSRF-Token.

const root = document.getElementById('app');
const state = { csrf: '', me: null, agents: [], stream: null, view: null };

// ---- DOM helpers

/**
 * Characters a browser obeys or hides rather than shows: C0/C1 controls, the Unicode bidi controls
 * that reorder what is displayed ("evil subject" shown as "tcejbus live": Trojan Source,
 * CVE-2021-42574), and invisible format characters (zero-width space, word joiner, BOM, the
 * U+E0000 tag block used to smuggle text past a reader). Each is shown as a visible `<U+202E>`
 * marker, the CLI's notation (src/cli/output.ts). Tab and line breaks stay in multi-line text.
 * ZWJ/ZWNJ (U+200C/U+200D) stay: emoji sequences and several scripts need them.
 */
const HIDDEN = /\r\n|[\x00-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]|\udb40[\udc00-\udc7f]/g;
function show(text, multiline = true) {
  return String(text).replace(HIDDEN, (m) => {
    if (m === '\r\n' || m === '\n') return multiline ? '\n' : ' ';
    if (m === '\t') return multiline ? '\t' : ' ';
    const c = m.codePointAt(0);
    return `<U+${c.toString(16).toUpperCase().padStart(4, '0')}>`;
  });
}

/** h('div.cls', {attr}, ...children): children are nodes or text (text is never parsed). */
function h(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split('.');
  const el = document.createElement(tag || 'div');
  if (classes.length) el.className = classes.join(' ');
  if (attrs && (typeof attrs !== 'object' || attrs instanceof Node || Array.isArray(attrs))) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    // Attributes a person reads (title, download file name, aria-label) are neutralised like text.
    else el.setAttribute(k, v === true ? '' : k === 'href' || k === 'src' ? String(v) : show(v, false));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    // Every text node passes show(): mail-derived text never drives the page's layout.
    el.append(c instanceof Node ? c : document.createTextNode(show(c)));
  }
  return el;
}

function mount(...nodes) {
  const main = document.getElementById('main') || root;
  main.replaceChildren(...nodes.flat(Infinity).filter((n) => n !== null && n !== undefined && n !== false));
}

function fmtTime(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  const sameDay = d.toDateString() === new Date().toDateString();
  return sameDay ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }) : d.toLocaleDateString([], { year: 'numeric', month: 'short', day: 'numeric' });
}
const fullTime = (iso) => (iso ? new Date(iso).toLocaleString() : '');
/** `to` is an array today and may become a string (compat shapes): show either. */
const list = (v) => (Array.isArray(v) ? v.join(', ') : v ?? '');
const fromOf = (m) => (typeof m.from === 'string' ? m.from : m.from ? (m.from.name ? `${m.from.name} <${m.from.address}>` : m.from.address) : '');

function toast(text, kind = 'info') {
  const t = h('div.toast.' + kind, { role: 'status' }, text);
  document.body.append(t);
  setTimeout(() => t.remove(), 4000);
}

async function copy(text, label) {
  try {
    await navigator.clipboard.writeText(text);
    toast(`Copied ${label}`);
  } catch {
    toast('Copy failed: select the text and copy it yourself', 'error');
  }
}
const copyButton = (text, label) => h('button.small', { type: 'button', title: `Copy ${label}`, onclick: () => copy(text, label) }, 'Copy');

// ---- API

class ApiError extends Error {
  constructor(status, body) {
    super(body?.error?.message || `HTTP ${status}`);
    this.status = status;
    this.code = body?.error?.code;
  }
}

async function api(method, path, { query, body, raw } = {}) {
  const url = new URL(path, location.origin);
  for (const [k, v] of Object.entries(query || {})) if (v !== undefined && v !== null && v !== '') url.searchParams.set(k, v);
  const headers = { accept: raw ? '*/*' : 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = state.csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' });
  if (raw && res.ok) return res.text();
  const json = await res.json().catch(() => null);
  if (res.status === 401 && path !== '/ui/session') {
    signInView('Your session has ended; sign in again.');
    throw new ApiError(401, json);
  }
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

function errorBox(err) {
  return h('p.error', { role: 'alert' }, err instanceof ApiError ? `${err.message}${err.code ? ` (${err.code})` : ''}` : String(err));
}

/** Run an async view body, showing its error in place of a blank page. */
async function guarded(fn) {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return;
    mount(errorBox(err));
  }
}

const can = (scope) => state.me?.api_key?.scopes?.includes(scope);

// ---- sign-in

function signInView(message) {
  closeStream();
  const input = h('input', { type: 'password', name: 'api_key', autocomplete: 'off', placeholder: 'mk_test_…', required: true, 'aria-label': 'API key' });
  const out = h('div');
  const form = h('form.signin', {
    onsubmit: async (e) => {
      e.preventDefault();
      out.replaceChildren();
      try {
        const s = await api('POST', '/ui/session', { body: { api_key: input.value } });
        state.csrf = s.csrf_token;
        await start();
      } catch (err) {
        out.replaceChildren(errorBox(err));
      }
    },
  },
  h('h1', 'mailagent'),
  h('p', message || 'Sign in with an API key, or run `mailagent ui` for a one-time link.'),
  h('label', 'API key ', input),
  h('button', { type: 'submit' }, 'Sign in'),
  out);
  root.replaceChildren(h('main.center', form));
  input.focus();
}

// ---- shell

const NAV = [
  ['#/inbox', 'Inbox'], ['#/sent', 'Sent'], ['#/drafts', 'Drafts'], ['#/events', 'Events'],
  ['#/webhooks', 'Webhooks'], ['#/keys', 'API keys'], ['#/test', 'Test tools'],
];

function shell() {
  const me = state.me;
  const search = h('input', { type: 'search', name: 'q', placeholder: 'Search: words, from:, subject:, has:attachment, is:unread…', 'aria-label': 'Search mail' });
  const form = h('form.search', {
    role: 'search',
    onsubmit: (e) => {
      e.preventDefault();
      const base = location.hash.startsWith('#/sent') ? '#/sent' : '#/inbox';
      go(base, { ...params(), q: search.value || undefined, cursor: undefined });
    },
  }, search);
  const who = `${me.api_key.name} · ${me.api_key.mode}${me.agent ? ` · ${me.agent.email}` : ''}`;
  root.replaceChildren(
    h('header.top',
      h('a.brand', { href: '#/inbox' }, 'mailagent'),
      form,
      h('span.who', { title: `key ${me.api_key.prefix}… scopes ${me.api_key.scopes.join(',')}` }, who),
      h('button.small', { type: 'button', onclick: signOut }, 'Sign out')),
    h('nav.side', NAV.map(([href, label]) => h('a', { href, dataset: { nav: href } }, label))),
    h('main', { id: 'main' }),
  );
}

async function signOut() {
  closeStream();
  await api('DELETE', '/ui/session').catch(() => {});
  state.csrf = '';
  signInView('Signed out.');
}

function params() {
  const q = location.hash.split('?')[1] || '';
  return Object.fromEntries(new URLSearchParams(q));
}

function go(path, p = {}) {
  const qs = new URLSearchParams(Object.entries(p).filter(([, v]) => v !== undefined && v !== '')).toString();
  location.hash = qs ? `${path}?${qs}` : path;
}

function markNav() {
  const path = location.hash.split('?')[0] || '#/inbox';
  for (const a of document.querySelectorAll('nav.side a')) a.classList.toggle('active', path.startsWith(a.dataset.nav) || (a.dataset.nav === '#/inbox' && path.startsWith('#/m/')));
  const input = document.querySelector('form.search input');
  if (input && document.activeElement !== input) input.value = params().q || '';
}

async function route() {
  if (!state.me) return;
  markNav();
  const [path] = (location.hash || '#/inbox').split('?');
  const parts = path.slice(2).split('/');
  state.view = parts[0];
  const p = params();
  switch (parts[0]) {
    case 'm': return guarded(() => messageView(decodeURIComponent(parts[1])));
    case 'sent': return parts[1] ? guarded(() => sentMessageView(decodeURIComponent(parts[1]))) : guarded(() => sentView(p));
    case 'drafts': return guarded(() => draftsView(p));
    case 'events': return guarded(() => eventsView(p));
    case 'webhooks': return parts[1] ? guarded(() => webhookView(decodeURIComponent(parts[1]), p)) : guarded(() => webhooksView());
    case 'keys': return guarded(() => keysView());
    case 'test': return guarded(() => testView());
    default: return guarded(() => inboxView(p));
  }
}

// ---- live updates (server-sent events through the API, cookie-authenticated)

const LIVE_TYPES = ['message.received', 'reply.received', 'message.received.unauthenticated', 'message.sent', 'message.scheduled', 'message.canceled'];

function openStream() {
  closeStream();
  const es = new EventSource(`/v1/events/stream?event_types=${LIVE_TYPES.join(',')}`);
  for (const type of LIVE_TYPES) {
    es.addEventListener(type, (e) => {
      let ev = null;
      try { ev = JSON.parse(e.data); } catch { return; }
      onLiveEvent(ev);
    });
  }
  state.stream = es;
}

function closeStream() {
  if (state.stream) state.stream.close();
  state.stream = null;
}

function onLiveEvent(ev) {
  const inbound = ev.type === 'message.received' || ev.type === 'reply.received' || ev.type === 'message.received.unauthenticated';
  if (inbound) toast(`New mail${ev.data?.subject ? `: ${ev.data.subject}` : ''}`);
  if ((state.view === 'inbox' || !state.view) && inbound) route();
  if (state.view === 'sent' && !inbound) route();
}

// ---- inbox

function agentPicker(p, base) {
  if (state.me.api_key.agent_id || state.agents.length < 2) return null;
  return h('label.inline', 'Agent ',
    h('select', {
      'aria-label': 'Agent',
      onchange: (e) => go(base, { ...p, agent: e.target.value || undefined, cursor: undefined }),
    }, h('option', { value: '' }, 'All agents'),
    state.agents.map((a) => h('option', { value: a.id, selected: p.agent === a.id }, a.email))));
}

/**
 * A score shown with 2 decimals is cut, never rounded: 0.946 (below the 0.95 quarantine threshold)
 * must not read "0.95", the quarantine figure. The epsilon absorbs binary fractions (0.29 * 100).
 */
const score2 = (x) => (Math.floor(Number(x) * 100 + 1e-9) / 100).toFixed(2);

function verdict(m) {
  const c = m.classification;
  const out = [];
  if (m.quarantined) out.push(h('span.badge.danger', { title: `Prompt-injection score ${c?.injection_score ?? ''}` }, 'Quarantined'));
  else if (c && c.injection_score >= 0.5) out.push(h('span.badge.warn', { title: `Prompt-injection score ${c.injection_score}` }, `Injection ${score2(c.injection_score)}`));
  if (c?.intent) out.push(h('span.badge', c.intent));
  if (m.test_mode) out.push(h('span.badge.muted', 'test'));
  if (m.over_limit) out.push(h('span.badge.warn', m.over_limit));
  return out;
}

function pager(page, p, base) {
  return page.has_more && page.next_cursor
    ? h('p', h('a.button', { href: `${base}?${new URLSearchParams({ ...p, cursor: page.next_cursor })}` }, 'Older →'))
    : null;
}

async function inboxView(p) {
  const page = await api('GET', '/v1/messages/received', { query: { q: p.q, agent_id: p.agent, cursor: p.cursor, limit: 50 } });
  const rows = page.data.map((m) => h('a.row' + (m.read === false ? '.unread' : ''), { href: `#/m/${m.id}`, dataset: { id: m.id } },
    h('span.dot', { title: m.read === false ? 'Unread' : 'Read', 'aria-label': m.read === false ? 'Unread' : 'Read' }),
    h('span.from', fromOf(m)),
    h('span.subject', m.subject || '(no subject)', h('span.excerpt', m.quarantined ? ' — content hidden (quarantined)' : m.body_text_excerpt ? ` — ${m.body_text_excerpt}` : '')),
    h('span.badges', verdict(m)),
    h('time', { datetime: m.received_at, title: fullTime(m.received_at) }, fmtTime(m.received_at))));
  mount(
    h('div.toolbar', h('h2', p.q ? `Search: ${p.q}` : 'Inbox'), agentPicker(p, '#/inbox'),
      p.q ? h('a.button', { href: '#/inbox' }, 'Clear search') : null,
      h('span.live', { title: 'New mail appears without reloading' }, '● live')),
    rows.length ? h('div.list', { role: 'list' }, rows) : h('p.empty', p.q ? 'No mail matches.' : 'No mail yet. Send some to an agent address, or use Test tools → Simulate inbound.'),
    pager(page, p, '#/inbox'),
  );
}

// ---- one received message

function kv(rows) {
  return h('dl.kv', rows.filter(([, v]) => v !== undefined && v !== null && v !== '').map(([k, v]) => [h('dt', k), h('dd', v)]));
}

function authBadge(name, v) {
  const val = v === true ? 'pass' : v === false ? 'fail' : v || 'not checked';
  return h('span.badge.' + (val === 'pass' ? 'ok' : val === 'fail' ? 'danger' : 'muted'), `${name} ${val}`);
}

function entityList(entities) {
  const items = [];
  for (const [kind, value] of Object.entries(entities || {})) {
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      const text = typeof v === 'string' || typeof v === 'number' ? String(v) : v && typeof v === 'object' ? String(v.value ?? v.url ?? v.code ?? JSON.stringify(v)) : '';
      if (!text) continue;
      items.push(h('li', h('span.kind', kind), h('code.entity', text), copyButton(text, kind)));
    }
  }
  return items.length ? h('ul.entities', items) : h('p.muted', 'No entities found.');
}

async function messageView(id) {
  const m = await api('GET', `/v1/messages/received/${encodeURIComponent(id)}`);
  if (m.read === false) api('POST', `/v1/messages/received/${encodeURIComponent(id)}/read`, { body: { read: true } }).catch(() => {});
  const c = m.classification;
  const body = h('section.body');
  // Entities are extracted from the body (a quarantined mail's "forward all mail to …" among them):
  // withheld with it until the user reveals it, as the MCP tools do (src/mcp/quarantine.ts).
  const entities = h('div.entities', m.quarantined ? h('p.muted', 'Entities hidden (quarantined): shown with the content.') : entityList(c?.entities));
  const showBody = () => {
    body.replaceChildren(bodyTabs(m));
    entities.replaceChildren(entityList(c?.entities));
  };
  if (m.quarantined) {
    body.append(h('div.quarantine', { role: 'alert' },
      h('strong', 'Quarantined: '), `the classifier scored this message ${c ? score2(c.injection_score) : ''} for prompt injection${c?.injection_categories?.length ? ` (${c.injection_categories.join(', ')})` : ''}. `,
      'Its content is hidden; read it only if you trust it. ',
      h('button.danger', { type: 'button', onclick: showBody }, 'Show quarantined content')));
  } else showBody();

  const threadBox = h('section.thread');
  mount(
    h('div.toolbar', h('a.button', { href: '#/inbox' }, '← Inbox'),
      h('button', { type: 'button', onclick: async () => { await api('POST', `/v1/messages/received/${encodeURIComponent(id)}/read`, { body: { read: false } }); toast('Marked unread'); } }, 'Mark unread'),
      h('a.button', { href: `/v1/messages/${encodeURIComponent(id)}/raw`, download: `${id}.eml` }, 'Download .eml')),
    h('h2.subject', m.subject || '(no subject)', ' ', verdict(m)),
    kv([
      ['From', fromOf(m)], ['To', list(m.to)], ['Cc', list(m.cc)], ['Delivered to', m.delivered_to],
      ['Date', fullTime(m.received_at)], ['Message-ID', m.message_id], ['Source', m.source],
    ]),
    // Mail from --trusted-networks was accepted without SPF/DKIM checks: say so, not "pass".
    m.trusted_network
      ? h('p.auth', h('span.badge.muted', { title: 'SMTP client in --trusted-networks: counts as authenticated, SPF/DKIM/DMARC not checked' }, `Trusted network ${m.trusted_network}`),
        authBadge('SPF', m.spf_pass), authBadge('DKIM', m.dkim_pass))
      : h('p.auth', authBadge('SPF', m.spf_pass), authBadge('DKIM', m.dkim_pass), authBadge('DMARC', m.dmarc)),
    c ? h('details.classification', { open: true }, h('summary', 'Classification'),
      kv([
        ['Intent', c.intent], ['Urgency', String(c.urgency)], ['Injection score', String(c.injection_score)],
        ['Injection categories', (c.injection_categories || []).join(', ') || 'none'],
        ['Sender reputation', String(c.sender_reputation)], ['Model', c.classifier_model],
      ]),
      h('h3', 'Entities'), entities) : null,
    (m.attachments || []).length ? h('section.attachments', h('h3', 'Attachments'),
      h('ul', m.attachments.map((a) => h('li',
        h('a', { href: `/v1/messages/${encodeURIComponent(id)}/attachments/${encodeURIComponent(a.id)}`, download: a.filename || a.id }, a.filename || a.id),
        ` ${a.content_type}, ${a.size} bytes`)))) : null,
    body,
    threadBox,
  );
  if (m.thread_id) {
    api('GET', `/v1/threads/${encodeURIComponent(m.thread_id)}`).then((t) => {
      if (!t.messages || t.messages.length < 2) return;
      threadBox.replaceChildren(h('h3', `Thread (${t.messages.length})`), h('ol.threadlist', t.messages.map((x) => h('li' + (x.id === id ? '.current' : ''),
        h('a', { href: x.direction === 'inbound' ? `#/m/${x.id}` : `#/sent/${x.id}` }, `${x.direction === 'inbound' ? '←' : '→'} ${x.from}`),
        ` ${x.subject} · ${fmtTime(x.received_at || x.sent_at || x.created_at)}`))));
    }).catch(() => {});
  }
}

const RAW_SHOWN = 1024 * 1024;

function bodyTabs(m) {
  const panel = h('div.panel');
  const tabs = [];
  // Not `show`: that name is the page-wide text sanitiser the raw tab's callback needs.
  const select = (name, render) => {
    for (const t of tabs) t.setAttribute('aria-selected', String(t.dataset.tab === name));
    panel.replaceChildren(render());
  };
  const tab = (name, label, render) => {
    const b = h('button.tab', { type: 'button', role: 'tab', dataset: { tab: name }, onclick: () => select(name, render) }, label);
    tabs.push(b);
    return b;
  };
  const text = () => h('pre.text', m.body_text ?? m.extracted_text ?? '(no text part)');
  const html = () => htmlFrame(m.id, false);
  const headers = () => h('table.headers', (m.headers || []).map((x) => h('tr', h('th', x.name), h('td', x.value))));
  const raw = () => {
    const pre = h('pre.raw', 'Loading…');
    // A page stays responsive: the first MiB is shown, the whole source is one click away (.eml).
    api('GET', `/v1/messages/${encodeURIComponent(m.id)}/raw`, { raw: true }).then(
      (t) => { pre.textContent = show(t.length > RAW_SHOWN ? `${t.slice(0, RAW_SHOWN)}\n… (${t.length - RAW_SHOWN} more characters: use Download .eml)` : t); },
      (e) => { pre.textContent = String(e.message); });
    return pre;
  };
  const bar = h('div.tabs', { role: 'tablist' },
    m.body_html ? tab('html', 'HTML', html) : null, tab('text', 'Text', text), tab('headers', 'Headers', headers), m.raw_url !== null ? tab('raw', 'Raw source', raw) : null);
  const wrap = h('div', bar, panel);
  select(m.body_html ? 'html' : 'text', m.body_html ? html : text);
  return wrap;
}

/** Mail HTML lives in its own sandboxed document (no scripts, no same-origin), with its own CSP from the API. */
function htmlFrame(id, remote) {
  const src = `/v1/messages/received/${encodeURIComponent(id)}/html${remote ? '?remote_images=true' : ''}`;
  const frame = h('iframe.mail', { sandbox: 'allow-popups allow-popups-to-escape-sandbox', src, referrerpolicy: 'no-referrer', title: 'Message HTML (sandboxed)' });
  const box = h('div.htmlbox',
    remote ? null : h('p.muted', 'Remote images are blocked (they can tell the sender you opened the mail). ',
      h('button.small', { type: 'button', onclick: () => box.replaceWith(htmlFrame(id, true)) }, 'Load remote images')),
    frame);
  return box;
}

// ---- sent mail, scheduled sends, drafts

async function sentView(p) {
  const page = await api('GET', '/v1/messages', { query: { q: p.q, agent_id: p.agent, cursor: p.cursor, limit: 50 } });
  const rows = page.data.map((m) => h('div.row', { dataset: { id: m.id } },
    h('span.badge.' + (m.status === 'failed' ? 'danger' : m.status === 'scheduled' ? 'warn' : 'muted'), m.status),
    h('a.from', { href: `#/sent/${m.id}` }, list(m.to)),
    h('span.subject', m.subject || '(no subject)'),
    h('span.badges', m.test_mode ? h('span.badge.muted', 'test') : null,
      m.status === 'scheduled' && can('manage') ? h('button.small', { type: 'button', onclick: async () => {
        if (!confirm(show(`Cancel the scheduled send "${m.subject}"?`, false))) return;
        try { await api('POST', `/v1/messages/${m.id}/cancel`, { body: {} }); toast('Canceled'); route(); } catch (e) { toast(e.message, 'error'); }
      } }, 'Cancel') : null),
    h('time', { title: fullTime(m.scheduled_at || m.sent_at || m.created_at) }, m.status === 'scheduled' ? `at ${fullTime(m.scheduled_at)}` : fmtTime(m.sent_at || m.created_at))));
  mount(h('div.toolbar', h('h2', p.q ? `Sent: ${p.q}` : 'Sent and scheduled'), agentPicker(p, '#/sent')),
    rows.length ? h('div.list', rows) : h('p.empty', 'Nothing sent yet.'), pager(page, p, '#/sent'));
}

async function sentMessageView(id) {
  const m = await api('GET', `/v1/messages/${encodeURIComponent(id)}`);
  mount(h('div.toolbar', h('a.button', { href: '#/sent' }, '← Sent'), h('a.button', { href: `/v1/messages/${encodeURIComponent(id)}/raw`, download: `${id}.eml` }, 'Download .eml')),
    h('h2.subject', m.subject || '(no subject)', ' ', h('span.badge', m.status)),
    kv([['From', m.from], ['To', list(m.to)], ['Cc', list(m.cc)], ['Bcc', list(m.bcc)], ['Created', fullTime(m.created_at)],
      ['Sent', fullTime(m.sent_at)], ['Scheduled', fullTime(m.scheduled_at)], ['Delivered', fullTime(m.delivered_at)], ['Cold-email score', String(m.classifier_score)]]),
    (m.attachments || []).length ? h('ul', m.attachments.map((a) => h('li', h('a', { href: `/v1/messages/${encodeURIComponent(id)}/attachments/${encodeURIComponent(a.id)}`, download: a.filename }, a.filename), ` ${a.content_type}, ${a.size} bytes`))) : null,
    h('pre.text', m.body_text ?? '(no text part)'));
}

async function draftsView(p) {
  const page = await api('GET', '/v1/drafts', { query: { cursor: p.cursor, limit: 50 } });
  const rows = page.data.map((d) => h('div.row', h('span.badge', d.status), h('span.from', list(d.to) || '(no recipient)'), h('span.subject', d.subject || '(no subject)'),
    h('span.badges', d.send_at ? `sends ${fullTime(d.send_at)}` : null,
      can('send') || can('draft') || can('manage') ? h('button.small', { type: 'button', onclick: async () => {
        if (!confirm('Delete this draft?')) return;
        try { await api('DELETE', `/v1/drafts/${d.id}`); toast('Draft deleted'); route(); } catch (e) { toast(e.message, 'error'); }
      } }, 'Delete') : null),
    h('time', fmtTime(d.updated_at))));
  mount(h('h2', 'Drafts'), rows.length ? h('div.list', rows) : h('p.empty', 'No drafts.'), pager(page, p, '#/drafts'));
}

// ---- events

/** A quarantined mail's event without its content (the fields src/mcp/quarantine.ts withholds). */
function withheldEvent(ev) {
  const data = { ...ev.data };
  for (const k of ['body_text_excerpt', 'extracted_text', 'body_text', 'body_html']) if (k in data) data[k] = null;
  if (data.classification?.entities) data.classification = { ...data.classification, entities: {} };
  return { ...ev, data, ...(ev.entities ? { entities: {} } : {}), body_withheld: true };
}

async function eventsView(p) {
  const page = await api('GET', '/v1/events', { query: { event_type: p.type, agent_id: p.agent, since: p.since, cursor: p.cursor, limit: 50 } });
  const type = h('input', { name: 'type', value: p.type || '', placeholder: 'message.received', 'aria-label': 'Event type' });
  const since = h('input', { name: 'since', value: p.since || '', placeholder: '2026-01-01', 'aria-label': 'Since' });
  const filters = h('form.filters', { onsubmit: (e) => { e.preventDefault(); go('#/events', { type: type.value, since: since.value, agent: p.agent }); } },
    h('label.inline', 'Type ', type), h('label.inline', 'Since ', since), agentPicker(p, '#/events'), h('button', { type: 'submit' }, 'Filter'));
  const rows = page.data.map((ev) => {
    const json = h('pre.json', JSON.stringify(ev.quarantined ? withheldEvent(ev) : ev, null, 2));
    return h('details.event', h('summary', h('code', ev.type), ' ', h('span.muted', ev.id), ' ', h('time', fullTime(ev.created_at)),
      ev.quarantined ? h('span.badge.danger', 'quarantined') : null),
    ev.quarantined ? h('p.muted', 'Content and entities of this quarantined mail are hidden. ',
      h('button.small.danger', { type: 'button', onclick: () => { json.textContent = show(JSON.stringify(ev, null, 2)); } }, 'Show quarantined content')) : null,
    json);
  });
  mount(h('h2', 'Events'), filters, rows.length ? h('div', rows) : h('p.empty', 'No events match.'), pager(page, p, '#/events'));
}

// ---- webhooks

async function webhooksView() {
  const page = await api('GET', '/v1/webhooks', { query: { limit: 100 } });
  mount(h('h2', 'Webhook endpoints'),
    page.data.length ? h('div.list', page.data.map((w) => h('a.row', { href: `#/webhooks/${w.id}` },
      h('span.badge.' + (w.active ? 'ok' : 'danger'), w.active ? 'active' : `off${w.disabled_reason ? `: ${w.disabled_reason}` : ''}`),
      h('span.from', w.url), h('span.subject', w.event_types.join(', ')), h('time', fmtTime(w.created_at)))))
      : h('p.empty', 'No webhook endpoints. Create one with `mailagent webhooks create` or POST /v1/webhooks.'));
}

async function webhookView(id, p) {
  const w = await api('GET', `/v1/webhooks/${encodeURIComponent(id)}`);
  const page = await api('GET', `/v1/webhooks/${encodeURIComponent(id)}/deliveries`, { query: { cursor: p.cursor, limit: 50 } });
  const rows = page.data.map((d) => h('div.row',
    h('span.badge.' + (d.status === 'succeeded' || d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'danger' : 'warn'), d.status),
    h('code.from', d.event_type), h('span.subject', d.http_status ? `HTTP ${d.http_status}` : d.error || '', ` · attempt ${d.attempt_number}`),
    h('span.badges', can('manage') && !state.me.api_key.agent_id ? h('button.small', { type: 'button', onclick: async () => {
      try { await api('POST', `/v1/webhook-deliveries/${d.id}/replay`, { body: {} }); toast('Replay queued'); route(); } catch (e) { toast(e.message, 'error'); }
    } }, 'Replay') : null),
    h('time', { title: fullTime(d.created_at) }, fmtTime(d.created_at))));
  mount(h('div.toolbar', h('a.button', { href: '#/webhooks' }, '← Webhooks')), h('h2', w.url),
    kv([['Id', w.id], ['Events', w.event_types.join(', ')], ['Active', String(w.active)], ['Description', w.description]]),
    h('h3', 'Deliveries'), rows.length ? h('div.list', rows) : h('p.empty', 'No deliveries yet.'), pager(page, p, `#/webhooks/${id}`));
}

// ---- API keys

async function keysView() {
  const page = await api('GET', '/v1/api-keys', { query: { limit: 100 } });
  const created = h('div');
  const manage = can('manage');
  const name = h('input', { name: 'name', required: true, placeholder: 'ci', 'aria-label': 'Key name' });
  const mode = h('select', { name: 'mode', 'aria-label': 'Mode' }, h('option', { value: 'test' }, 'test'), h('option', { value: 'live' }, 'live'));
  const scopes = ['send', 'read', 'manage', 'draft'].map((s) => h('label.inline', h('input', { type: 'checkbox', name: 'scope', value: s, checked: s !== 'manage' }), ` ${s}`));
  const agent = h('select', { name: 'agent', 'aria-label': 'Agent' }, h('option', { value: '' }, 'any agent'), state.agents.map((a) => h('option', { value: a.id }, a.email)));
  const form = manage ? h('form.card', {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        const k = await api('POST', '/v1/api-keys', { body: {
          name: name.value, mode: mode.value, agent_id: agent.value || undefined,
          scopes: scopes.map((l) => l.querySelector('input')).filter((i) => i.checked).map((i) => i.value),
        } });
        created.replaceChildren(h('div.once', { role: 'alert' }, h('strong', 'New key (shown once): '), h('code.secret', k.key), copyButton(k.key, 'key')));
        await keysView().then(() => document.getElementById('main').prepend(created));
      } catch (err) {
        created.replaceChildren(errorBox(err));
      }
    },
  }, h('h3', 'Create a key'), h('label.inline', 'Name ', name), h('label.inline', 'Mode ', mode), scopes, state.me.api_key.agent_id ? null : h('label.inline', 'Agent ', agent), h('button', { type: 'submit' }, 'Create')) : null;
  const rows = page.data.map((k) => h('div.row',
    h('span.badge.' + (k.revoked_at ? 'danger' : 'ok'), k.revoked_at ? 'revoked' : k.mode),
    h('span.from', k.name), h('code.subject', `${k.prefix}… ${k.scopes.join(',')}${k.agent_id ? ` · ${k.agent_id}` : ''}`),
    h('span.badges', k.id === state.me.api_key.id ? h('span.badge.muted', 'this session') : null,
      manage && !k.revoked_at && !state.me.api_key.agent_id ? h('button.small.danger', { type: 'button', onclick: async () => {
        if (!confirm(`Revoke key "${k.name}" (${k.prefix}…)? Clients using it stop working at once.`)) return;
        try { await api('DELETE', `/v1/api-keys/${k.id}`); toast('Key revoked'); route(); } catch (e) { toast(e.message, 'error'); }
      } }, 'Revoke') : null),
    h('time', { title: `last used ${fullTime(k.last_used_at) || 'never'}` }, fmtTime(k.created_at))));
  mount(h('h2', 'API keys'), created, form, h('div.list', rows));
}

// ---- test tools

async function testView() {
  const isTest = state.me.api_key.mode === 'test';
  const agentSel = () => h('select', { name: 'agent', 'aria-label': 'Agent' }, state.agents.map((a) => h('option', { value: a.name }, a.email)));
  const out1 = h('div');
  const out2 = h('div');
  const sendAgent = agentSel();
  const to = h('input', { name: 'to', required: true, value: state.agents[0]?.email || '', 'aria-label': 'To' });
  const subject = h('input', { name: 'subject', value: 'Test message', 'aria-label': 'Subject' });
  const text = h('textarea', { name: 'body_text', rows: 4, 'aria-label': 'Body' }, 'Hello from the mailagent web inbox.');
  const sendForm = h('form.card', {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        const r = await api('POST', '/v1/messages', { body: { agent: sendAgent.value, to: to.value, subject: subject.value, body_text: text.value } });
        out1.replaceChildren(h('p.ok', `Sent ${r.id} (${r.status}${r.test_mode ? ', test mode' : ''}). `, h('a', { href: `#/sent/${r.id}` }, 'Open')));
      } catch (err) { out1.replaceChildren(errorBox(err)); }
    },
  }, h('h3', 'Send a test message'), h('label', 'From agent ', sendAgent), h('label', 'To ', to), h('label', 'Subject ', subject), h('label', 'Body ', text), h('button', { type: 'submit' }, 'Send'), out1);

  const simAgent = agentSel();
  const from = h('input', { name: 'from', required: true, value: 'alice@example.com', 'aria-label': 'From address' });
  const simSubject = h('input', { name: 'subject', value: 'Your verification code', 'aria-label': 'Subject' });
  const simText = h('textarea', { name: 'body_text', rows: 4, 'aria-label': 'Text body' }, 'Your code is 482913.');
  const simHtml = h('textarea', { name: 'body_html', rows: 3, placeholder: '<p>optional HTML</p>', 'aria-label': 'HTML body' });
  const simForm = h('form.card', {
    onsubmit: async (e) => {
      e.preventDefault();
      try {
        const r = await api('POST', '/v1/test/inbound', { body: { agent: simAgent.value, from: from.value, subject: simSubject.value, body_text: simText.value, body_html: simHtml.value || undefined } });
        out2.replaceChildren(h('p.ok', `Delivered ${r.message_id}: ${r.classification.intent}${r.quarantined ? ', quarantined' : ''}. `, h('a', { href: `#/m/${r.message_id}` }, 'Open')));
      } catch (err) { out2.replaceChildren(errorBox(err)); }
    },
  }, h('h3', 'Simulate inbound mail'), h('label', 'To agent ', simAgent), h('label', 'From ', from), h('label', 'Subject ', simSubject), h('label', 'Text ', simText), h('label', 'HTML ', simHtml), h('button', { type: 'submit' }, 'Deliver'), out2);

  mount(h('h2', 'Test tools'),
    isTest ? null : h('p.warn', 'This session uses a live key: sends are real and the simulator needs a test key (run `mailagent ui` without --live).'),
    can('send') ? [sendForm, simForm] : h('p.muted', 'This key lacks the send scope.'));
}

// ---- start

async function start() {
  const s = await api('GET', '/ui/session');
  state.csrf = s.csrf_token;
  state.me = await api('GET', '/v1/me');
  state.agents = state.me.agent ? [state.me.agent] : (await api('GET', '/v1/agents', { query: { limit: 100 } }).catch(() => ({ data: [] }))).data;
  shell();
  openStream();
  await route();
}

window.addEventListener('hashchange', route);
start().catch((err) => {
  if (err instanceof ApiError && err.status === 401) signInView();
  else root.replaceChildren(errorBox(err));
});
