import type { RouteDef } from './route.js';

export const webhookRoutes = {} satisfies Record<string, RouteDef>;
