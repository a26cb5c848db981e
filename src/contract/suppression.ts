import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, IdParams, Opt } from './common.js';
import { route } from './route.js';

export const SUPPRESSION_TYPES = ['hard_bounce', 'complaint', 'unsubscribe'] as const;
export const SUPPRESSION_SCOPES = ['workspace', 'agent'] as const;

const Address = Type.String({ minLength: 3, maxLength: 320 });

/** compat.md: Suppression lookup `{suppressed, type, scope, since, allowed}`. */
export const SuppressionLookup = Type.Object({
  object: Type.Literal('suppression_lookup'),
  address: Type.String(),
  suppressed: Type.Boolean(),
  type: Opt(Type.Enum(SUPPRESSION_TYPES)),
  scope: Opt(Type.Enum(SUPPRESSION_SCOPES)),
  agent_id: Opt(Type.String()),
  since: Opt(Timestamp),
  allowed: Opt(Type.Object({ id: Type.String(), attestation: Type.String(), created_at: Timestamp })),
});
export type SuppressionLookup = Static<typeof SuppressionLookup>;

export const SuppressionEntry = Type.Object({
  id: Type.String(),
  object: Type.Literal('suppression'),
  address: Type.String(),
  type: Type.Enum(SUPPRESSION_TYPES),
  scope: Type.Enum(SUPPRESSION_SCOPES),
  agent_id: Opt(Type.String()),
  source_message_id: Opt(Type.String()),
  reason: Opt(Type.String()),
  /** False when a consent allow entry made later lifts it. */
  active: Type.Boolean(),
  created_at: Timestamp,
});
export type SuppressionEntry = Static<typeof SuppressionEntry>;

export const ConsentAllow = Type.Object({
  id: Type.String(),
  object: Type.Literal('suppression_allow'),
  address: Type.String(),
  attestation: Type.String(),
  created_at: Timestamp,
  revoked_at: Opt(Timestamp),
});
export type ConsentAllow = Static<typeof ConsentAllow>;

export const SuppressionQuery = Type.Object(
  {
    ...ListQuery,
    address: Type.Optional(Address),
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    include_revoked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SuppressionQuery = Static<typeof SuppressionQuery>;

export const SuppressionEntriesQuery = Type.Object(
  { ...ListQuery, agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) },
  { additionalProperties: false },
);
export type SuppressionEntriesQuery = Static<typeof SuppressionEntriesQuery>;

export const SuppressionCreate = Type.Object(
  {
    address: Address,
    /** Default `unsubscribe`: the person asked not to be mailed. */
    type: Type.Optional(Type.Enum(SUPPRESSION_TYPES)),
    /** With an agent: only that agent stops mailing the address; without: the whole workspace. */
    agent_id: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type SuppressionCreate = Static<typeof SuppressionCreate>;

export const AllowCreate = Type.Object(
  {
    address: Address,
    attestation: Type.String({ minLength: 20, maxLength: 2000 }),
  },
  { additionalProperties: false },
);
export type AllowCreate = Static<typeof AllowCreate>;

export const AllowRevoked = Type.Object({ id: Type.String(), revoked_at: Timestamp });

export const suppressionRoutes = {
  'suppression.get': route({
    method: 'GET', path: '/suppression', scope: 'read',
    summary: 'Look up an address (?address=), or list consent allow entries',
    query: SuppressionQuery, status: 200, response: Type.Union([SuppressionLookup, Page(ConsentAllow)]),
  }),
  'suppression.entries': route({
    method: 'GET', path: '/suppression/entries', scope: 'read', summary: 'List suppression entries',
    query: SuppressionEntriesQuery, status: 200, response: Page(SuppressionEntry),
  }),
  'suppression.create': route({
    method: 'POST', path: '/suppression', scope: 'manage', summary: 'Suppress an address',
    body: SuppressionCreate, status: 201, response: SuppressionEntry,
  }),
  'suppression.allow': route({
    method: 'POST', path: '/suppression/allow', scope: 'manage',
    summary: 'Allow a suppressed address again, with an attestation of consent',
    unboundOnly: 'allow a suppressed address again', body: AllowCreate, status: 201, response: ConsentAllow,
  }),
  'suppression.allow_revoke': route({
    method: 'DELETE', path: '/suppression/allow/:id', scope: 'manage',
    summary: 'Undo a consent allow entry (the suppression blocks again)',
    unboundOnly: 'undo a consent allow entry', params: IdParams, status: 200, response: AllowRevoked,
  }),
};
