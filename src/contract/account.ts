import type { RouteDef } from './route.js';

export const accountRoutes = {} satisfies Record<string, RouteDef>;
