import type { RouteDef } from './route.js';

export const domainRoutes = {} satisfies Record<string, RouteDef>;
