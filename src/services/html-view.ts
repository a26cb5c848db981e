import type { SanitizedHtml, SanitizeOptions } from '../mail/html-sanitize.js';
import { workOf } from './message-work.js';
import type { AppContext } from './context.js';

/** A render's outcome: the sanitised body, or why it was not rendered (MessageWork.sanitizeHtml). */
export type HtmlRender = SanitizedHtml | { cut: string };

/**
 * Sanitised HTML kept for re-clicks, per store, in characters of sanitised HTML (2 bytes each at
 * most: 16 MiB of memory). A body over half of it is not kept (the largest stored HTML, 1 MiB
 * characters, sanitises to at most ~2.4 M characters: it is kept).
 */
export const HTML_VIEW_CACHE_CHARS = 8 * 1024 * 1024;
/**
 * A render that was cut (budget overrun) is remembered this long: a re-click of crafted HTML costs
 * no worker time, and a cut caused by a briefly overloaded machine is tried again after it.
 */
export const HTML_CUT_REMEMBER_MS = 5 * 60_000;
/** What a remembered cut counts against the cache. */
const CUT_CHARS = 256;

interface Entry {
  render: HtmlRender;
  chars: number;
  at: number;
}

/** Least recently used first (a Map iterates in insertion order; a hit is re-inserted). */
class RenderCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  get(key: string, now: number): HtmlRender | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    this.entries.delete(key);
    if ('cut' in e.render && now - e.at > HTML_CUT_REMEMBER_MS) {
      this.chars -= e.chars;
      return undefined;
    }
    this.entries.set(key, e);
    return e.render;
  }

  set(key: string, render: HtmlRender, now: number): void {
    const chars = 'cut' in render ? CUT_CHARS : render.html.length;
    if (chars > HTML_VIEW_CACHE_CHARS / 2) return;
    const old = this.entries.get(key);
    if (old) {
      this.entries.delete(key);
      this.chars -= old.chars;
    }
    this.entries.set(key, { render, chars, at: now });
    this.chars += chars;
    for (const [k, e] of this.entries) {
      if (this.chars <= HTML_VIEW_CACHE_CHARS) break;
      this.entries.delete(k);
      this.chars -= e.chars;
    }
  }
}

interface Views {
  cache: RenderCache;
  /** Renders under way: a view that asks for the same one waits for it instead of starting another. */
  inflight: Map<string, Promise<HtmlRender>>;
}

/** Keyed by the store handle: the one object every context of a daemon shares. */
const views = new WeakMap<object, Views>();

/**
 * The sanitised HTML of a received message for display (GET /v1/messages/received/{id}/html and
 * the web inbox's HTML tab, which frames it): from the cache, from a render of the same view under
 * way, or rendered off the main thread under the budget (MessageWork.sanitizeHtml). `key` names
 * the message and the options (a stored message never changes); the caller has checked that the
 * key's owner may see it. `inline` is read only when a render is needed.
 */
export async function renderMailHtml(
  ctx: AppContext, key: string, html: string, remoteImages: boolean, inline: () => Promise<SanitizeOptions['inline']>,
): Promise<HtmlRender> {
  const v = views.get(ctx.db) ?? { cache: new RenderCache(), inflight: new Map<string, Promise<HtmlRender>>() };
  views.set(ctx.db, v);
  const cached = v.cache.get(key, ctx.clock.now());
  if (cached) return cached;
  const running = v.inflight.get(key);
  if (running) return running;
  const render = (async () => {
    try {
      const out = await workOf(ctx).sanitizeHtml(html, { remoteImages, inline: await inline() });
      v.cache.set(key, out, ctx.clock.now());
      return out;
    } finally {
      v.inflight.delete(key);
    }
  })();
  v.inflight.set(key, render);
  return render;
}
