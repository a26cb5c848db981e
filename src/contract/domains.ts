import { Type, type Static } from 'typebox';
import { Nullable, Timestamp, ListQuery, Page, IdParams, Deleted, Opt } from './common.js';
import { route } from './route.js';

export const DOMAIN_STATUSES = ['pending', 'verified', 'failed'] as const;

export const DnsRecord = Type.Object({
  purpose: Type.Enum(['verification', 'spf', 'dkim'] as const),
  type: Type.Literal('TXT'),
  /** Fully qualified name to publish the record at. */
  name: Type.String(),
  value: Type.String(),
  /** What the value assumes, or why it cannot be right yet (an SPF record on a loopback-only install); null when nothing to say. */
  note: Opt(Type.String()),
  /** Result of the last check: `pending` (never checked), `verified`, `missing` or `mismatch`. */
  status: Type.Enum(['pending', 'verified', 'missing', 'mismatch'] as const),
});
export type DnsRecord = Static<typeof DnsRecord>;

export const Domain = Type.Object({
  id: Type.String(),
  object: Type.Literal('domain'),
  domain: Type.String(),
  status: Type.Enum(DOMAIN_STATUSES),
  records: Type.Array(DnsRecord),
  dkim_selector: Type.String(),
  verified_at: Opt(Timestamp),
  last_checked_at: Opt(Timestamp),
  last_error: Opt(Type.String()),
  created_at: Timestamp,
});
export type Domain = Static<typeof Domain>;

export const DomainCreate = Type.Object(
  { domain: Type.String({ minLength: 3, maxLength: 253 }) },
  { additionalProperties: false },
);
export type DomainCreate = Static<typeof DomainCreate>;

export const domainRoutes = {
  'domains.create': route({
    method: 'POST', path: '/domains', scope: 'manage', summary: 'Add a custom sending domain (returns the DNS records to publish)',
    unboundOnly: 'add a sending domain', body: DomainCreate, status: 201, response: Domain,
  }),
  'domains.list': route({
    method: 'GET', path: '/domains', scope: 'read', summary: 'List sending domains',
    query: Type.Object(ListQuery, { additionalProperties: false }), status: 200, response: Page(Domain),
  }),
  'domains.get': route({
    method: 'GET', path: '/domains/:id', scope: 'read', summary: 'Retrieve a sending domain (id or name)',
    params: IdParams, status: 200, response: Domain,
  }),
  'domains.verify': route({
    method: 'POST', path: '/domains/:id/verify', scope: 'manage', summary: 'Check the domain\'s DNS records now',
    unboundOnly: 'verify a sending domain', params: IdParams, status: 200, response: Domain,
  }),
  'domains.delete': route({
    method: 'DELETE', path: '/domains/:id', scope: 'manage', summary: 'Remove a sending domain',
    unboundOnly: 'remove a sending domain', params: IdParams, status: 200, response: Deleted,
  }),
};
