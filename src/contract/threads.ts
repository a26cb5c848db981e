import type { RouteDef } from './route.js';

export const threadRoutes = {} satisfies Record<string, RouteDef>;
