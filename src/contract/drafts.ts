import type { RouteDef } from './route.js';

export const draftRoutes = {} satisfies Record<string, RouteDef>;
