import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, IdParams, Opt } from './common.js';
import { route } from './route.js';

/** Signing secrets: `whsec_` + standard base64 (Standard Webhooks decodes the part after the prefix). */
export const SIGNING_SECRET_PATTERN = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'dlq'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

export const WebhookEndpoint = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_endpoint'),
  url: Type.String(),
  event_types: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  active: Type.Boolean(),
  /** Why the service switched the endpoint off (`gone`: the receiver answered 410), or null. */
  disabled_reason: Opt(Type.String()),
  secret_rotated_at: Nullable(Timestamp),
  previous_secret_expires_at: Nullable(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type WebhookEndpoint = Static<typeof WebhookEndpoint>;

export const WebhookEndpointWithSecret = Type.Evaluate(
  Type.Intersect([WebhookEndpoint, Type.Object({ signing_secret: Type.String() })]),
);
export type WebhookEndpointWithSecret = Static<typeof WebhookEndpointWithSecret>;

const Url = Type.String({ minLength: 1, maxLength: 2048 });
const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 100 });
const Description = Nullable(Type.String({ maxLength: 500 }));

export const WebhookCreate = Type.Object(
  {
    url: Url,
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type WebhookCreate = Static<typeof WebhookCreate>;

export const WebhookUpdate = Type.Object(
  {
    url: Type.Optional(Url),
    event_types: Type.Optional(EventTypes),
    description: Type.Optional(Description),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type WebhookUpdate = Static<typeof WebhookUpdate>;

export const WebhookRotate = Type.Object(
  {
    /** How long the previous secret keeps signing (default 86400 = 24 h; 0 ends it at once). */
    previous_secret_ttl_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 7 * 86400 })),
  },
  { additionalProperties: false },
);
export type WebhookRotate = Static<typeof WebhookRotate>;

export const WebhookDeleted = Type.Object({ id: Type.String(), deleted_at: Timestamp });

export const WebhookTestResult = Type.Object({
  ok: Type.Boolean(),
  http_status: Type.Optional(Type.Integer()),
  error: Type.Optional(Type.String()),
});
export type WebhookTestResult = Static<typeof WebhookTestResult>;

export const WebhookDelivery = Type.Object({
  id: Type.String(),
  object: Type.Literal('webhook_delivery'),
  webhook_endpoint_id: Type.String(),
  event_id: Type.String(),
  event_type: Type.String(),
  /** Attempts made so far (0 until the first one). */
  attempt_number: Type.Integer(),
  status: Type.Enum(WEBHOOK_DELIVERY_STATUSES),
  http_status: Opt(Type.Integer()),
  response_body_excerpt: Opt(Type.String()),
  error: Opt(Type.String()),
  next_retry_at: Opt(Timestamp),
  delivered_at: Opt(Timestamp),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type WebhookDelivery = Static<typeof WebhookDelivery>;

export const WebhookDeliveryAttempt = Type.Object({
  attempt_number: Type.Integer(),
  status: Type.Enum(['succeeded', 'failed'] as const),
  http_status: Opt(Type.Integer()),
  response_body_excerpt: Opt(Type.String()),
  error: Opt(Type.String()),
  duration_ms: Type.Integer(),
  attempted_at: Timestamp,
});
export type WebhookDeliveryAttempt = Static<typeof WebhookDeliveryAttempt>;

export const WebhookDeliveryWithAttempts = Type.Evaluate(
  Type.Intersect([WebhookDelivery, Type.Object({ attempts: Type.Array(WebhookDeliveryAttempt) })]),
);
export type WebhookDeliveryWithAttempts = Static<typeof WebhookDeliveryWithAttempts>;

export const WebhookDeliveryListQuery = Type.Object(
  {
    ...ListQuery,
    status: Type.Optional(Type.Enum(WEBHOOK_DELIVERY_STATUSES)),
    event_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type WebhookDeliveryListQuery = Static<typeof WebhookDeliveryListQuery>;

export const WebhookReplayed = Type.Object({
  delivery_id: Type.String(),
  event_id: Type.String(),
  /** Ids of the new deliveries. */
  scheduled: Type.Array(Type.String()),
  scheduled_at: Timestamp,
});
export type WebhookReplayed = Static<typeof WebhookReplayed>;

const ListQuerySchema = Type.Object({ ...ListQuery }, { additionalProperties: false });
const NoBody = Type.Object({}, { additionalProperties: false });

export const webhookRoutes = {
  'webhooks.create': route({
    method: 'POST', path: '/webhooks', scope: 'manage', summary: 'Create a webhook endpoint (signing secret returned once)',
    unboundOnly: 'create a webhook', body: WebhookCreate, status: 201, response: WebhookEndpointWithSecret,
  }),
  'webhooks.list': route({
    method: 'GET', path: '/webhooks', scope: 'read', summary: 'List webhook endpoints, newest first',
    query: ListQuerySchema, status: 200, response: Page(WebhookEndpoint),
  }),
  'webhooks.get': route({
    method: 'GET', path: '/webhooks/:id', scope: 'read', summary: 'Retrieve a webhook endpoint',
    params: IdParams, status: 200, response: WebhookEndpoint,
  }),
  'webhooks.update': route({
    method: 'PATCH', path: '/webhooks/:id', scope: 'manage', summary: 'Update a webhook endpoint (url, types, pause/resume)',
    unboundOnly: 'change a webhook', params: IdParams, body: WebhookUpdate, status: 200, response: WebhookEndpoint,
  }),
  'webhooks.delete': route({
    method: 'DELETE', path: '/webhooks/:id', scope: 'manage', summary: 'Delete a webhook endpoint',
    unboundOnly: 'delete a webhook', params: IdParams, status: 200, response: WebhookDeleted,
  }),
  'webhooks.test': route({
    method: 'POST', path: '/webhooks/:id/test', scope: 'manage', summary: 'Send a signed test delivery now',
    unboundOnly: 'test a webhook', params: IdParams, body: NoBody, status: 200, response: WebhookTestResult,
  }),
  'webhooks.rotate_secret': route({
    method: 'POST', path: '/webhooks/:id/rotate-secret', scope: 'manage', summary: 'Rotate the signing secret (new secret returned once)',
    unboundOnly: 'rotate a webhook signing secret', params: IdParams, body: WebhookRotate, status: 200, response: WebhookEndpointWithSecret,
  }),
  'webhooks.deliveries': route({
    method: 'GET', path: '/webhooks/:id/deliveries', scope: 'read', summary: 'List deliveries to an endpoint, newest first',
    params: IdParams, query: WebhookDeliveryListQuery, status: 200, response: Page(WebhookDelivery),
  }),
  'webhook_deliveries.get': route({
    method: 'GET', path: '/webhook-deliveries/:id', scope: 'read', summary: 'Retrieve a delivery with its attempt history',
    params: IdParams, status: 200, response: WebhookDeliveryWithAttempts,
  }),
  'webhook_deliveries.replay': route({
    method: 'POST', path: '/webhook-deliveries/:id/replay', scope: 'manage', summary: 'Deliver a delivery\'s event to its endpoint again',
    unboundOnly: 'replay a webhook', params: IdParams, body: NoBody, status: 200, response: WebhookReplayed,
  }),
};
