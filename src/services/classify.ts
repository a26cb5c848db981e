import type { ClassifyRequest, ClassifyResult } from '../contract/classify.js';
import { failClosed, isQuarantined } from '../classifier/quarantine.js';
import { Errors } from '../shared/errors.js';
import type { AppContext, AuthContext } from './context.js';
import { resolveAgent } from './agents.js';
import { senderHistory } from './inbound.js';
import { workOf } from './message-work.js';
import { attachmentNames, attachmentTexts, bodiesUnread, bodiesWereCut, type AttachmentText } from '../mail/parse.js';

const UNKNOWN_SENDER = {
  messagesFromSender: 0, messagesFromDomain: 0, repliesFromSender: 0, sendsToSender: 0,
  spfPass: null, dkimPass: null, suppressed: false, complaints: 0,
};

/** POST /v1/classify: the same classifier the pipelines use, with nothing stored and no event. */
export async function classifyRequest(ctx: AppContext, auth: AuthContext, body: ClassifyRequest): Promise<ClassifyResult> {
  const direction = body.direction ?? 'inbound';
  let from = body.from ?? '';
  let fromName = body.from_name ?? null;
  let subject = body.subject ?? '';
  let text = body.body_text ?? '';
  let html = body.body_html ?? null;
  let to = body.to ?? [];
  let headers: Record<string, string> = {};
  let attachments: AttachmentText[] = [];
  let names: string[] = [];
  let unparsed = false;
  let bodiesCut = false;
  if (body.raw !== undefined) {
    if (!body.raw.trim()) throw Errors.invalidParam('raw', '`raw` is empty; give a whole RFC 822 message.');
    // In the worker pool under the per-message budget, as for mail received over SMTP.
    const { parsed } = await workOf(ctx).parse(Buffer.from(body.raw, 'utf8'));
    from = parsed.from?.address ?? from;
    fromName = parsed.from?.name ?? fromName;
    subject = parsed.subject || subject;
    text = parsed.text ?? text;
    html = parsed.html ?? html;
    to = parsed.to.length ? parsed.to : to;
    headers = parsed.headerMap;
    attachments = attachmentTexts(parsed.attachments);
    names = attachmentNames(parsed.attachments);
    // (session 14) MIME not parsed: the text is the raw body bytes, which fail closed (services/inbound.ts)
    unparsed = bodiesUnread(parsed);
    bodiesCut = bodiesWereCut(parsed);
  } else if (!subject && !text && !html) {
    throw Errors.missingField('body_text', 'Give `raw` (a whole message) or at least one of `subject`, `body_text`, `body_html`.');
  }

  if (direction === 'outbound') {
    const s = await workOf(ctx).screen({ subject, text, html, to, isReply: body.is_reply ?? false });
    return { direction, cold_screen: { ...s, signals: [...s.signals] } };
  }
  const agent = body.agent ? await resolveAgent(ctx, auth, body.agent, 'filter') : null;
  const history = agent && from ? await senderHistory(ctx, auth.workspaceId, agent.id, from.toLowerCase(), undefined) : UNKNOWN_SENDER;
  const { classification: scored } = await workOf(ctx).classify({
    from, fromName, subject, text, html, headers, attachments, attachmentNames: names, bodiesCut, classifyIntent: agent ? agent.classify_inbound : true, history,
  }, ctx.clock.now());
  const c = unparsed ? failClosed(scored) : scored;
  return {
    direction,
    classification: { ...c, entities: c.entities as Record<string, unknown>, injection_categories: [...c.injection_categories] },
    quarantined: isQuarantined(c),
  };
}
