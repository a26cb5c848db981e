import type { Event } from '../contract/events.js';
import type { AppContext } from '../services/context.js';
import { neutralize } from '../contract/neutralize.js';

const INBOUND = new Set(['message.received', 'reply.received', 'message.received.unauthenticated', 'message.received.over_limit']);

/**
 * One info line per message that arrives or leaves (docs/cli.md → serve logs), from the event
 * bus: the services stay free of logging concerns, and the line is written only after commit.
 * Fields: id, from, to, subject and the verdict (inbound: the event type, intent, quarantine;
 * outbound: status, routing pool, screen score, test mode). Subject and addresses are data
 * from mail, and the log is read on terminals (pino-pretty's lines, `journalctl`): they are
 * neutralised (contract/neutralize.ts) — JSON escapes C0 controls but not C1 or bidi controls.
 */
export function logMessages(ctx: AppContext, level?: string): () => void {
  const onEvent = (ev: Event) => {
    // Below info (--log-level warn/silent) the line would be dropped: do not build it (every send
    // and every inbound message passes here).
    if (!infoLogged(ctx, level)) return;
    const raw = ev.data as Record<string, unknown>;
    const d: Record<string, unknown> = { ...raw, from: shown(raw.from), to: shown(raw.to), subject: shown(raw.subject) };
    if (INBOUND.has(ev.type)) {
      const verdict = ev.type === 'message.received.over_limit'
        ? `held (${String(d.over_limit ?? 'over limit')})`
        : [ev.type === 'message.received' ? 'received' : ev.type.replace('message.received.', '').replace('.received', ''), ev.intent, ev.quarantined ? 'quarantined' : null].filter(Boolean).join(', ');
      ctx.log.info({ id: ev.source_message_id, from: d.from, to: d.to, subject: d.subject ?? null, verdict, test_mode: ev.test_mode }, 'mail received');
    } else if (ev.type === 'message.sent' || ev.type === 'message.failed') {
      const verdict = [d.status, d.routing_pool ? `pool ${String(d.routing_pool)}` : null, typeof d.classifier_score === 'number' ? `screen ${d.classifier_score}` : null, d.classifier_warning ? 'would be refused live' : null].filter(Boolean).join(', ');
      ctx.log.info({ id: ev.source_message_id, from: d.from, to: d.to, subject: d.subject, verdict, test_mode: ev.test_mode }, ev.type === 'message.sent' ? 'mail sent' : 'mail failed');
    }
  };
  ctx.bus.on('event', onEvent);
  return () => ctx.bus.off('event', onEvent);
}

/**
 * Whether info lines are written. With `--log-level silent` the daemon's logger is fastify's
 * stand-in for no logger, which has no isLevelEnabled: the configured level answers then.
 */
const QUIETER_THAN_INFO = new Set(['warn', 'error', 'fatal', 'silent']);

function infoLogged(ctx: AppContext, level: string | undefined): boolean {
  if (ctx.log.isLevelEnabled) return ctx.log.isLevelEnabled('info');
  return level === undefined || !QUIETER_THAN_INFO.has(level);
}

/** A mail-derived field as the log shows it: strings (and lists of them) neutralised, on one line. */
function shown(v: unknown): unknown {
  if (typeof v === 'string') return neutralize(v);
  if (Array.isArray(v)) return v.map(shown);
  return v;
}
