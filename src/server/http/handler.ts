import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDef, ParamsOf, QueryOf, BodyOf } from '../../contract/route.js';
import type { RouteId, Routes } from '../../contract/routes.js';
import type { AppContext, AuthContext, WriteAnnouncement } from '../../services/context.js';

export interface HandlerInput<R extends RouteDef> {
  ctx: AppContext;
  /** The calling key; null only on public routes. */
  auth: R['scope'] extends 'public' ? null : AuthContext;
  params: ParamsOf<R>;
  query: QueryOf<R>;
  body: BodyOf<R>;
  req: FastifyRequest;
  reply: FastifyReply;
  /**
   * Send routes (RouteDef.send): the request's announcement to the group commit
   * (services/context.ts announceWrite), for the send's first groupedTransaction.
   */
  announced?: WriteAnnouncement;
}

/** A handler returns the response body; the status comes from the route table unless it sets one. */
/**
 * Resolves (or, where the answer is at hand without I/O, returns) the response body: a value for
 * the route's serialiser, or a string already serialised with `reply.type()` set (GET /v1/me).
 */
export type Handler<R extends RouteDef> = (input: HandlerInput<R>) => Promise<unknown> | object | string;

export type HandlerMap<K extends RouteId> = { [P in K]: Handler<Routes[P]> };

/** Type a routes file's handlers against the route table. */
export function defineHandlers<K extends RouteId>(map: HandlerMap<K>): HandlerMap<K> {
  return map;
}
