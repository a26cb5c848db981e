import type { RouteDef } from './route.js';

export const receivedRoutes = {} satisfies Record<string, RouteDef>;
