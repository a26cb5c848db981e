import { Type, type Static } from 'typebox';
import { route } from './route.js';
import { Classification } from './received.js';


export const ColdScreen = Type.Object({
  score: Type.Number(),
  reason: Type.Enum(['cold_outreach', 'bulk_marketing', 'spam', 'unclear'] as const),
  blocked: Type.Boolean(),
  appealable: Type.Boolean(),
  signals: Type.Array(Type.String()),
  message: Type.String(),
});

/**
 * Classify without storing anything. Give `raw` (a whole RFC 822 message) or the parts.
 * `agent` (id or name) applies that agent's classify_inbound setting and the workspace's
 * history with the sender; without it the sender is treated as unknown.
 */
export const ClassifyRequest = Type.Object(
  {
    direction: Type.Optional(Type.Enum(['inbound', 'outbound'] as const, { default: 'inbound' })),
    raw: Type.Optional(Type.String({ maxLength: 10_000_000 })),
    from: Type.Optional(Type.String({ maxLength: 998 })),
    from_name: Type.Optional(Type.String({ maxLength: 998 })),
    to: Type.Optional(Type.Array(Type.String({ maxLength: 998 }), { maxItems: 150 })),
    subject: Type.Optional(Type.String({ maxLength: 998 })),
    body_text: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    body_html: Type.Optional(Type.String({ maxLength: 1_000_000 })),
    agent: Type.Optional(Type.String({ minLength: 1, maxLength: 320 })),
    is_reply: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ClassifyRequest = Static<typeof ClassifyRequest>;

export const ClassifyResult = Type.Object({
  direction: Type.Enum(['inbound', 'outbound'] as const),
  classification: Type.Optional(Classification),
  quarantined: Type.Optional(Type.Boolean()),
  cold_screen: Type.Optional(ColdScreen),
});
export type ClassifyResult = Static<typeof ClassifyResult>;

export const classifyRoutes = {
  'classify.create': route({
    method: 'POST', path: '/classify', scope: 'read',
    summary: 'Classify a message without storing it (inbound classification or the outbound cold-email screen)',
    body: ClassifyRequest, status: 200, response: ClassifyResult, bodyLimit: 12 * 1024 * 1024,
  }),
};
