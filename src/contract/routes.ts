import type { RouteDef } from './route.js';
import { meRoutes } from './me.js';
import { agentRoutes } from './agents.js';
import { apiKeyRoutes } from './api-keys.js';
import { messageRoutes } from './messages.js';
import { receivedRoutes } from './received.js';
import { classifyRoutes } from './classify.js';
import { eventRoutes } from './events.js';
import { webhookRoutes } from './webhooks.js';
import { draftRoutes } from './drafts.js';
import { threadRoutes } from './threads.js';
import { suppressionRoutes } from './suppression.js';
import { domainRoutes } from './domains.js';
import { accountRoutes } from './account.js';
import { publicRoutes } from './public.js';
import { oauthRoutes } from './oauth.js';
import { webRoutes } from './web.js';

/** The one route table: route id → method, path, scope, schemas, status. */
export const routes = {
  ...meRoutes,
  ...agentRoutes,
  ...apiKeyRoutes,
  ...messageRoutes,
  ...receivedRoutes,
  ...classifyRoutes,
  ...eventRoutes,
  ...webhookRoutes,
  ...draftRoutes,
  ...threadRoutes,
  ...suppressionRoutes,
  ...domainRoutes,
  ...accountRoutes,
  ...publicRoutes,
  ...oauthRoutes,
  ...webRoutes,
} satisfies Record<string, RouteDef>;

export type Routes = typeof routes;
export type RouteId = keyof Routes;

/** Both prefixes serve the same routes (compat.md: hosted SDKs call /api/v1). */
export const API_PREFIXES = ['/v1', '/api/v1'] as const;
