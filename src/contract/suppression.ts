import type { RouteDef } from './route.js';

export const suppressionRoutes = {} satisfies Record<string, RouteDef>;
