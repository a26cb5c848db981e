import type { RouteDef } from './route.js';

export const classifyRoutes = {} satisfies Record<string, RouteDef>;
