import type { TSchema, Static } from 'typebox';
import type { Scope } from './common.js';

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

/**
 * Who may call a route. `null`: any valid key (e.g. /v1/me). `'public'`: no key at all.
 * A scope string: that scope. `anyOf`: one of them (draft routes). `allOf`: all of them
 * (rescheduling needs manage and send).
 */
export type ScopeRule = null | 'public' | Scope | { anyOf: Scope[] } | { allOf: Scope[] };

export interface RouteDef {
  method: Method;
  /** Path under the API prefix, fastify style (`/agents/:id`). Served at /v1 and /api/v1. */
  path: string;
  scope: ScopeRule;
  summary: string;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /** Success status and its schema. `null` for non-JSON answers (raw .eml, SSE). */
  status: number;
  response: TSchema | null;
  /** Content type of a non-JSON answer. */
  produces?: string;
  /** A send route: Idempotency-Key honoured, RateLimit-* headers, burst limit. */
  send?: boolean;
  /** A route that stores mail without sending it (the inbound simulator): the low-disk guard applies, as to sends. */
  stores?: boolean;
  /** Maximum request body in bytes (default 1 MiB; send routes need more). */
  bodyLimit?: number;
  /** Never run for agent-bound keys (spec: Agent-bound keys → 403 insufficient_scope). */
  unboundOnly?: string;
  tags?: string[];
}

export const route = <R extends RouteDef>(r: R): R => r;

type In<T> = T extends TSchema ? Static<T> : undefined;
export type ParamsOf<R extends RouteDef> = In<R['params']>;
export type QueryOf<R extends RouteDef> = In<R['query']>;
export type BodyOf<R extends RouteDef> = In<R['body']>;
export type ResponseOf<R extends RouteDef> = R['response'] extends TSchema ? Static<R['response']> : unknown;
